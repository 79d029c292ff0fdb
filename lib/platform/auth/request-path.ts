/**
 * The path a page was asked for, as the server received it: server.ts writes it in this header on
 * every request (overwriting whatever a client sent), because a server component has no other way
 * to know its own URL. A signed-out visitor of `/runs/<id>` (a link from a Slack notice) is sent
 * to sign in with it as `next`, and comes back to it.
 */
export const REQUEST_PATH_HEADER = "x-hookplane-request-path";
