// CURATORS: `USER` (anywhere) or `WORKSPACE:USER`, where WORKSPACE is a Slack
// team or enterprise id or a Teams tenant GUID. Teams' own ids contain colons
// (`29:…`, `8:orgid:…`) and are users, never "workspace 29".
import { describe, expect, it } from 'vitest';
import { isCurator } from '../../src/feedback/curators.js';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const OTHER_TENANT = '0b7b3d6e-1c2a-4a8e-9f00-6f1d2e3c4b5a';
const AAD = '6a3e0b6c-2d1f-4e7a-8c9b-1a2b3c4d5e6f';

describe('CURATORS', () => {
  it('a Slack user id is a curator in every workspace; T…:U… only in that workspace', () => {
    expect(isCurator(['U123'], 'T1', 'U123')).toBe(true);
    expect(isCurator(['U123'], undefined, 'U123')).toBe(true);
    expect(isCurator(['T456:U123'], 'T456', 'U123')).toBe(true);
    expect(isCurator(['T456:U123'], 'T789', 'U123')).toBe(false);
    expect(isCurator(['T456:U123'], undefined, 'U123')).toBe(false);
    expect(isCurator(['E900:W123'], 'E900', 'W123')).toBe(true);
  });

  it("a Teams id with its colon is a user anywhere: 29:cur is not user cur of a tenant '29'", () => {
    expect(isCurator(['29:cur'], '29', 'cur')).toBe(false);
    expect(isCurator(['29:cur'], TENANT, '29:cur')).toBe(true);
    expect(isCurator(['29:1abcDEF'], TENANT, '29:1abcDEF')).toBe(true);
    expect(isCurator([`8:orgid:${AAD}`], TENANT, `8:orgid:${AAD}`)).toBe(true);
    expect(isCurator([`8:orgid:${AAD}`], 'orgid', AAD)).toBe(false);
  });

  it('tenant:29:… is that Teams user in that tenant only', () => {
    expect(isCurator([`${TENANT}:29:abc`], TENANT, '29:abc')).toBe(true);
    expect(isCurator([`${TENANT}:29:abc`], OTHER_TENANT, '29:abc')).toBe(false);
    expect(isCurator([`${TENANT}:29:abc`], TENANT, 'abc')).toBe(false);
  });

  it('an AAD object id (what the Teams adapter passes as the user) matches, in any case, anywhere or in its tenant', () => {
    expect(isCurator([AAD], TENANT, AAD)).toBe(true);
    expect(isCurator([AAD.toUpperCase()], TENANT, AAD)).toBe(true);
    expect(isCurator([`${TENANT}:${AAD}`], TENANT, AAD)).toBe(true);
    expect(isCurator([`${TENANT.toUpperCase()}:${AAD}`], TENANT, AAD)).toBe(true);
    expect(isCurator([`${TENANT}:${AAD}`], OTHER_TENANT, AAD)).toBe(false);
    expect(isCurator([AAD], TENANT, OTHER_TENANT)).toBe(false);
  });

  it('an entry with an unknown prefix is compared whole, and blanks name nobody', () => {
    expect(isCurator(['team:U1'], 'team', 'U1')).toBe(false);
    expect(isCurator(['T456:'], 'T456', '')).toBe(false);
    expect(isCurator([' U123 '], 'T1', 'U123')).toBe(true);
  });
});
