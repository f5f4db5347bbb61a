import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { SandboxDataFileError } from '../../src/sandbox/errors';
import { startSandbox } from '../../src/sandbox/server';
import { tempDir } from '../helpers/temp-dir';
import { call, dataFilePets, ENTERPRISE, postJson, start } from './helpers';


describe('the sandbox with --data', () => {
  it('returns int64 ids above 2^53 from the data file digit for digit, and assigns the next one exactly', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    writeFileSync(
      dataFile,
      '{"format":"petctl-sandbox-pets","version":2}\n{"id":9007199254740993,"name":"Huge","categoryId":9223372036854775807,"status":"available"}\n',
    );
    const { baseUrl, dataFile: served } = await start({ dataFile });
    expect(served).toBe(dataFile);

    const got = await call(baseUrl, '/pets/9007199254740993', { key: ENTERPRISE });
    expect(got.status).toBe(200);
    expect(got.text).toBe('{"id":9007199254740993,"name":"Huge","categoryId":9223372036854775807,"status":"available"}');

    // 9007199254740992 is what JSON.parse would have made of the stored id.
    expect((await call(baseUrl, '/pets/9007199254740992', { key: ENTERPRISE })).status).toBe(404);

    const listed = await call(baseUrl, '/pets', { key: ENTERPRISE });
    expect(listed.text).toContain('"id":9007199254740993');

    const created = await postJson(baseUrl, '{"name":"Next","categoryId":1}', ENTERPRISE);
    expect(created.status).toBe(201);
    expect(created.text).toBe('{"id":9007199254740994,"name":"Next","categoryId":1}');
    expect(created.headers.location).toBe('/v1/pets/9007199254740994');
    expect(readFileSync(dataFile, 'utf8')).toContain('\n{"id":9007199254740994,"name":"Next","categoryId":1}\n');
    expect(dataFilePets(dataFile).map((pet) => String(pet.id))).toEqual(['9007199254740993', '9007199254740994']);
  });

  it('refuses to start on a corrupt data file, naming it, and leaves it untouched', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    writeFileSync(dataFile, '{"format":"petctl-sandbox-pets","version":2}\n{"id":1,"name":"Rex"}\n');
    const starting = startSandbox({ port: 0, dataFile });
    await expect(starting).rejects.toBeInstanceOf(SandboxDataFileError);
    await expect(starting).rejects.toThrow(`sandbox data file ${dataFile} has an invalid animal at line 2: categoryId`);
    expect(readFileSync(dataFile, 'utf8')).toBe('{"format":"petctl-sandbox-pets","version":2}\n{"id":1,"name":"Rex"}\n');
  });

  it('answers 500 internal_error naming the file when it turns corrupt while serving', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const logLines: string[] = [];
    const { baseUrl } = await start({ dataFile, persistRateLimits: false, log: (line) => logLines.push(line) });
    writeFileSync(dataFile, 'not json');
    const reply = await call(baseUrl, '/pets', { key: ENTERPRISE });
    expect(reply.status).toBe(500);
    expect(reply.body).toMatchObject({ code: 'internal_error', status: 500 });
    expect((reply.body as { message: string }).message).toContain(dataFile);
    expect(readFileSync(dataFile, 'utf8')).toBe('not json');
    expect(logLines.some((line) => line.includes('SandboxDataFileError'))).toBe(true);
  });
});
