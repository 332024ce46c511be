/**
 * The API key format. Secrets are `prl_` + 32 random bytes (base64url); only their SHA-256 is
 * stored, with the first characters kept as a display prefix so people can tell keys apart.
 */
import { sha256Hex, toBase64url } from "../bytes.ts";

const SECRET_RE = /^prl_[A-Za-z0-9_-]{43}$/;
/** How much of the secret `keys list` shows. */
export const DISPLAY_PREFIX_LENGTH = 12;

/** A new random secret, shown to its owner once. */
export function generateSecret(): string {
  return `prl_${toBase64url(crypto.getRandomValues(new Uint8Array(32)))}`;
}

export const isWellFormedSecret = (secret: string): boolean => SECRET_RE.test(secret);

/** Hex SHA-256 of the secret: what the database stores and looks up by. */
export const hashSecret = (secret: string): Promise<string> => sha256Hex(secret);

/** Extracts the secret from `Authorization: Bearer <secret>`; null when absent or malformed. */
export function bearerSecret(header: string | null | undefined): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1] && isWellFormedSecret(match[1]) ? match[1] : null;
}
