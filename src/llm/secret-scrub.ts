// The operator's secrets, taken out of every model reply before anything reads
// it. A model endpoint sees the API key in each request's Authorization header;
// a hostile one can send it back inside its SQL (a string literal, a column
// name), a restated question or a JSON key, and PostgreSQL's error messages
// quote such values ("invalid input syntax for type bigint: ..."), which the
// answer shows. Replaced here, no later path can show, log or store them.

/** What a secret becomes in a reply. */
export const REDACTED = '[redacted]';

/** Values this short could be ordinary words or numbers; never treated as secrets. */
const SHORTEST_SECRET = 8;

/** The password in a connection URL (postgres://user:password@host/db), undefined when it has none. */
export function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password || undefined;
  } catch {
    return undefined;
  }
}

/** A function that replaces every given secret (and its URL-encoded form) in a text. */
export function secretScrubber(secrets: readonly (string | undefined)[]): (text: string) => string {
  const values = [
    ...new Set(
      secrets.flatMap((s) => (s && s.length >= SHORTEST_SECRET ? [s, encodeURIComponent(s), JSON.stringify(s).slice(1, -1)] : [])),
    ),
  ].sort((a, b) => b.length - a.length);
  if (!values.length) return (text) => text;
  return (text) => {
    let out = text;
    for (const v of values) out = out.split(v).join(REDACTED);
    return out;
  };
}
