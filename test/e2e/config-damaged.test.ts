import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSession, expectCleanError, jsonError, newApiKey, tempDir } from '../helpers/cli';

/**
 * A config.json that is not a JSON object is config_damaged (exit 1), naming the file, and every
 * command leaves it byte for byte: the profiles and keys it may hold are the user's to recover.
 */

describe.concurrent('a damaged config.json', () => {
  it.for([
    { what: 'JSON cut short', text: '{"activeProfile":"prod","profiles":{"prod":{"baseUrl":"https://api.example.org/v1","apiKey":"sk_live_0123456789' },
    { what: 'not an object', text: '["prod"]\n' },
  ])('$what: every command stops with config_damaged, exit 1, naming the file; nothing changed', async ({ text }) => {
    const configDir = tempDir();
    const configFile = path.join(configDir, 'config.json');
    fs.writeFileSync(configFile, text, { mode: 0o600 });
    const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir }, secrets: ['sk_live_0123456789'] });
    const reason = text.startsWith('[') ? 'not a JSON object' : 'not valid JSON';
    for (const [args, input] of [
      [['pets', 'list']],
      [['profile', 'list']],
      [['profile', 'add', 'qa', '--base-url', 'https://qa.example.org/v1']],
      [['profile', 'use', 'sandbox']],
      [['auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], newApiKey()],
      [['-p', 'sandbox', 'auth', 'logout']],
    ] as Array<[string[], string?]>) {
      const result = await petctl(args, { input });
      expect(result.code, args.join(' ')).toBe(1);
      expectCleanError(result);
      expect(result.stderr).toBe(
        `error: the configuration file ${configFile} is damaged (${reason}); nothing was changed (config_damaged)\n` +
          `hint: fix it by hand, or move it away to start with no profiles (mv ${configFile} ${configFile}.damaged)\n`,
      );
      expect(fs.readFileSync(configFile, 'utf8'), args.join(' ')).toBe(text);
    }
    const asJson = await petctl(['-o', 'json', 'pets', 'list']);
    expect(asJson.code).toBe(1);
    expect(jsonError(asJson)).toMatchObject({ code: 'config_damaged', status: 0 });
    expect(fs.readFileSync(configFile, 'utf8')).toBe(text);
  });
});
