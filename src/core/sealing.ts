// Sealing secrets at rest: AES-256-GCM under keys from a setting that lists
// them as id:base64 (32 bytes each), newest first. The first seals, any of them
// opens, so a key is rotated by putting the new one first, re-sealing every
// row with it and then dropping the old one. `setting` names the variable the
// keys came from, so every complaint says which one to fix.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SealingKey {
  id: string;
  key: Buffer;
  /** the setting that listed this key */
  setting: string;
}

class SealError extends Error {}

/** Reads "id:base64,id:base64" from `setting`; throws a sentence that says what is wrong. */
export function parseSealingKeys(text: string, setting: string): SealingKey[] {
  const keys = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf(':');
      if (at < 1) throw new SealError(`${setting}: "${entry.slice(0, 12)}…" is not id:base64-key`);
      const id = entry.slice(0, at);
      const key = Buffer.from(entry.slice(at + 1), 'base64');
      if (key.length !== 32) throw new SealError(`${setting}: key "${id}" is ${key.length} bytes; it must be 32 (openssl rand -base64 32)`);
      return { id, key, setting };
    });
  if (!keys.length) throw new SealError(`${setting} is empty`);
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new SealError(`${setting} names a key id twice`);
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
  if (!key) throw new SealError(`sealed with key "${keyId}", which ${keys[0]?.setting ?? 'the key list'} no longer lists`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, sealed.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new SealError(`a sealed value could not be opened with key "${keyId}" (a wrong key, or the row was altered)`);
  }
}
