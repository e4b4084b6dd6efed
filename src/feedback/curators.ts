// Who may make an answer verified with a 👍 (CURATORS). An entry is a user id,
// a curator in every workspace (Slack and Teams user ids are unique across
// workspaces), or "workspace:user", a curator in that workspace (Slack team
// id or Teams tenant id) only.
export function isCurator(curators: string[], workspace: string | undefined, userId: string): boolean {
  return curators.some((entry) => {
    const at = entry.lastIndexOf(':');
    if (at < 0) return entry === userId;
    return entry.slice(at + 1) === userId && entry.slice(0, at) === workspace;
  });
}
