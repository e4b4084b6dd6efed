// Sealing secrets at rest (the Slack installations' tokens): AES-256-GCM under
// a key from the environment. SLACK_TOKEN_KEYS lists keys as id:base64 (32
// bytes each), newest first: the first seals, any of them opens, so a key is
// rotated by putting the new one first, running `datadesk slack rekey` (which
// re-seals every row with it) and then dropping the old one.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SealingKey {
  id: string;
  key: Buffer;
}

class SealError extends Error {}

/** Reads SLACK_TOKEN_KEYS ("id:base64,id:base64"); throws a sentence that says what is wrong. */
export function parseSealingKeys(text: string): SealingKey[] {
  const keys = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf(':');
      if (at < 1) throw new SealError(`SLACK_TOKEN_KEYS: "${entry.slice(0, 12)}…" is not id:base64-key`);
      const id = entry.slice(0, at);
      const key = Buffer.from(entry.slice(at + 1), 'base64');
      if (key.length !== 32)
        throw new SealError(`SLACK_TOKEN_KEYS: key "${id}" is ${key.length} bytes; it must be 32 (openssl rand -base64 32)`);
      return { id, key };
    });
  if (!keys.length) throw new SealError('SLACK_TOKEN_KEYS is empty');
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new SealError('SLACK_TOKEN_KEYS names a key id twice');
  return keys;
}

/** iv (12 bytes) | tag (16 bytes) | ciphertext; `aad` (the row's key) binds a sealed value to its row. */
export function seal(key: SealingKey, plain: string, aad: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function unseal(keys: SealingKey[], keyId: string, sealed: Buffer, aad: string): string {
  const key = keys.find((k) => k.id === keyId);
  if (!key) throw new SealError(`sealed with key "${keyId}", which SLACK_TOKEN_KEYS no longer lists`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, sealed.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new SealError(`a sealed value could not be opened with key "${keyId}" (a wrong key, or the row was altered)`);
  }
}
