// The bot's few static pages (the Teams app's About/Privacy/Terms, Slack's
// install pages) in one plain, readable layout, with no script and nothing
// loaded from elsewhere (the Content-Security-Policy allows only inline style).
import type http from 'node:http';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#222}';

/** A page: its title (also its heading) and its body, HTML the caller escaped; `style` adds rules. */
export function htmlPage(title: string, body: string, style = ''): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title>` +
    `<style>${STYLE}${style}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

export function sendHtml(res: http.ServerResponse, status: number, html: string | undefined): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  });
  res.end(html);
}
