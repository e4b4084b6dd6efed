// The Teams app manifest `datadesk teams package` writes, validated against
// Microsoft's published Teams manifest JSON schema of the same version (the
// schema files ship in @microsoft/app-manifest, the Teams Toolkit's manifest
// package; they are draft-04 schemas, hence ajv-draft-04 with ajv-formats).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import AdmZip from 'adm-zip';
import { loadImage } from '@napi-rs/canvas';
import { buildTeamsPackage, teamsManifest, teamsPackageInput } from '../../../src/cli/commands/teams-package.js';
import { loadConfig } from '../../../src/config/env.js';

const require = createRequire(import.meta.url);
const schemasDir = path.join(path.dirname(require.resolve('@microsoft/app-manifest/package.json')), 'build', 'json-schemas', 'teams');

function validatorFor(manifestVersion: string) {
  const schema = JSON.parse(readFileSync(path.join(schemasDir, `v${manifestVersion}`, 'MicrosoftTeams.schema.json'), 'utf8'));
  // both are CommonJS whose exports carry the class and plugin as `default` too (what NodeNext's types see)
  const ajv = new Ajv04.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

const input = (env: Record<string, string> = {}) =>
  teamsPackageInput(
    loadConfig({ MICROSOFT_APP_ID: '7c9a1f3e-52b4-4d0e-9a61-3f2b8c4d5e6f', PUBLIC_BASE_URL: 'https://datadesk.example.com', ...env }),
  );

describe('the Teams app manifest', () => {
  it('names the schema of its own manifestVersion', () => {
    const manifest = teamsManifest(input());
    expect(manifest.$schema).toBe(
      `https://developer.microsoft.com/en-us/json-schemas/teams/v${manifest.manifestVersion}/MicrosoftTeams.schema.json`,
    );
  });

  it.each([
    ["default links (the bot's own pages)", {}],
    [
      "the organization's privacy and terms pages",
      {
        TEAMS_PRIVACY_URL: 'https://corp.example.com/legal/privacy?app=datadesk&v=2',
        TEAMS_TERMS_URL: 'https://corp.example.com/legal/terms',
      },
    ],
  ])("validates against Microsoft's schema, with %s", (_name, env) => {
    const zip = new AdmZip(buildTeamsPackage(input(env)));
    const manifest = JSON.parse(zip.readAsText('manifest.json'));
    const validate = validatorFor(manifest.manifestVersion);
    validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    if ('TEAMS_PRIVACY_URL' in env) expect(manifest.developer.privacyUrl).toBe(env.TEAMS_PRIVACY_URL);
  });

  it('the validation is real: a manifest without a terms link, with a non-URL privacy link or a bad id fails it', () => {
    const manifest = teamsManifest(input());
    const validate = validatorFor(String(manifest.manifestVersion));
    const { termsOfUseUrl: _dropped, ...developer } = manifest.developer as Record<string, string>;
    expect(validate({ ...manifest, developer })).toBe(false);
    expect(validate({ ...manifest, developer: { ...(manifest.developer as object), privacyUrl: 'datadesk.example.com/privacy' } })).toBe(
      false,
    );
    expect(validate({ ...manifest, id: 'not-a-guid' })).toBe(false);
  });

  it('ships the icons Teams requires: color 192x192, outline 32x32', async () => {
    const zip = new AdmZip(buildTeamsPackage(input()));
    const color = await loadImage(zip.readFile('color.png')!);
    const outline = await loadImage(zip.readFile('outline.png')!);
    expect([color.width, color.height, outline.width, outline.height]).toEqual([192, 192, 32, 32]);
  });
});
