// The pages the Teams app manifest links to when the operator has not given
// their own (TEAMS_PRIVACY_URL, TEAMS_TERMS_URL): GET /teams (the website),
// /teams/privacy and /teams/terms on the bot's own server. They say what this
// deployment stores, from its configuration, and that the operator has
// published no statement of their own: true, and no dead links in Teams' app
// details. An organization publishing the app to its catalog sets its pages.
import type { Config } from '../../config/env.js';
import type { Route } from '../../server/http-server.js';
import { escapeHtml, htmlPage, sendHtml } from '../../server/html-page.js';

const TEAMS_PAGES = { website: '/teams', privacy: '/teams/privacy', terms: '/teams/terms' } as const;

/** The manifest's developer links for a bot served at `domain`. */
export function manifestLinks(
  config: Pick<Config, 'teamsManifest'>,
  domain: string,
): { websiteUrl: string; privacyUrl: string; termsOfUseUrl: string } {
  return {
    websiteUrl: `https://${domain}${TEAMS_PAGES.website}`,
    privacyUrl: config.teamsManifest.privacyUrl ?? `https://${domain}${TEAMS_PAGES.privacy}`,
    termsOfUseUrl: config.teamsManifest.termsUrl ?? `https://${domain}${TEAMS_PAGES.terms}`,
  };
}

function page(title: string, paragraphs: string[]): string {
  return htmlPage(
    title,
    paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
      `<p><a href="${TEAMS_PAGES.website}">About</a> · <a href="${TEAMS_PAGES.privacy}">Privacy</a> · <a href="${TEAMS_PAGES.terms}">Terms</a></p>`,
  );
}

export function teamsPages(config: Pick<Config, 'threadMemoryTtlHours' | 'llm' | 'teamsManifest'>): Route {
  const llmHost = config.llm ? new URL(config.llm.baseUrl ?? 'https://api.openai.com/v1').host : undefined;
  const pages: Record<string, string> = {
    [TEAMS_PAGES.website]: page('Data Desk', [
      'Data Desk answers questions about the Chicago crime data and runs exact backtests over daily A-share bars, in the chat where you asked: mention it with a question, or say "help".',
      'This deployment is run by your organization, not by the authors of Data Desk.',
    ]),
    [TEAMS_PAGES.privacy]: page('Data Desk: what this deployment keeps', [
      'The operator of this deployment has not published a privacy statement of their own (they can, with TEAMS_PRIVACY_URL). What the software itself keeps, in its own PostgreSQL database:',
      'For every question: the time, the conversation and your Teams user id, the question text, how it was answered and the SQL it ran (never the result rows), kept until the operator deletes them.',
      `Per conversation thread: your clarification choices and the last question's plan, for ${config.threadMemoryTtlHours} hours; the conversation's reference, so that answers and scheduled digests can be posted; chart images, for 24 hours.`,
      llmHost
        ? `Questions that need a language model are sent, with the relevant database schema, to the model service at ${llmHost}.`
        : 'No language model is configured: questions are not sent to any other service.',
    ]),
    [TEAMS_PAGES.terms]: page('Data Desk: terms of use', [
      'The operator of this deployment has not published terms of use of their own (they can, with TEAMS_TERMS_URL).',
      'Answers are computed from the data loaded into this deployment and may be incomplete or out of date; check the SQL and the data date shown with each answer before relying on it. Backtests describe the past and are not investment advice.',
    ]),
  };
  return async (req, res) => {
    const html = pages[new URL(req.url ?? '/', 'http://x').pathname];
    if (!html || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    sendHtml(res, 200, req.method === 'HEAD' ? undefined : html);
    return true;
  };
}
