// Who may make an answer verified with a 👍 (CURATORS, comma-separated). The
// grammar of one entry:
//
//   USER               a curator in every workspace
//   WORKSPACE:USER     a curator in that workspace only
//
// WORKSPACE is a Slack team or enterprise id (T…, E…: capitals and digits) or a
// Teams tenant id (a GUID). USER is what the platform names the person by: a
// Slack user id (U…, W…) or, in Teams, the AAD object id (a GUID; the Teams
// adapter passes it as the user id, falling back to the channel id `29:…` only
// for a user without one). Teams' own ids contain colons (`29:1abc…`,
// `28:…`, `8:orgid:…`), so an entry is split at its FIRST colon, and only when
// what comes before it is a workspace id: `29:1abc` is a user anywhere (never
// user `1abc` of a tenant "29"), `<tenant guid>:29:1abc` is user `29:1abc` in
// that tenant. Anything else is a user id, compared whole.
const SLACK_WORKSPACE = /^[TE][A-Z0-9]+$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Curator {
  /** undefined: every workspace */
  workspace?: string;
  user: string;
}

function parseCurator(entry: string): Curator {
  const at = entry.indexOf(':');
  if (at < 0) return { user: entry };
  const prefix = entry.slice(0, at);
  if (SLACK_WORKSPACE.test(prefix) || GUID.test(prefix)) return { workspace: prefix, user: entry.slice(at + 1) };
  return { user: entry };
}

/** A GUID is compared without regard to case (Teams sends tenant and AAD ids in lower case, an admin may paste capitals). */
const same = (a: string, b: string) => a === b || (GUID.test(a) && a.toLowerCase() === b.toLowerCase());

export function isCurator(curators: string[], workspace: string | undefined, userId: string): boolean {
  return curators.some((entry) => {
    const c = parseCurator(entry.trim());
    if (!c.user || !same(c.user, userId)) return false;
    return c.workspace === undefined || (workspace !== undefined && same(c.workspace, workspace));
  });
}
