// Starting the HTTP server: a setting that cannot work is said as that setting,
// never as PostgreSQL going away (a newcomer's HOST=not_a_host was).
import { describe, expect, it } from 'vitest';
import { startHttpServer } from '../../src/server/http-server.js';
import { createMemoryLogger } from '../../src/core/logger.js';

describe('starting the HTTP server', () => {
  it('a HOST that is no address of this machine names HOST and what to use', async () => {
    await expect(startHttpServer('not_a_host.invalid', 0, [], createMemoryLogger())).rejects.toThrow(
      /^HOST=not_a_host\.invalid is not an address of this machine \(\w+\): use 127\.0\.0\.1/,
    );
  });
});
