/**
 * The "Ask AI" widget's wire: public keys' sessions for visitors (POST /v1/widget/sessions) and
 * their optional proof of work (POST /v1/widget/challenges). A session's `token` is then the
 * visitor's Bearer credential on the chat, resume, stop, feedback and own-conversation routes,
 * sent from an allowed origin (docs/widget.md).
 */

/** POST /v1/widget/sessions (Bearer pk_… or a visitor token to refresh); every field optional. */
export interface WidgetSessionRequest {
  /** The solved challenge (base64 JSON: algorithm, challenge, number, salt, signature), for a key that requires proof of work. */
  proof?: string;
  /** An HS256 JWT the site's own server signed with the key's user-token secret: its `sub` becomes the visitor id. */
  user_token?: string;
}

/** 201: a short-lived visitor token bound to the key, the page's origin and the visitor. */
export interface WidgetSession {
  /** `pvt_…`: the visitor's Bearer credential until `expires_at`. */
  token: string;
  /** `vis_…` for an anonymous visitor; the user token's `sub` for a signed-in one. Kept across refreshes. */
  visitor_id: string;
  expires_at: string;
}

/** POST /v1/widget/challenges (Bearer pk_…): an ALTCHA challenge (SHA-256 proof of work). */
export interface WidgetChallenge {
  algorithm: "SHA-256";
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}
