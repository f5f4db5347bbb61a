import { describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../src/api/client';
import { createPet, getPet, listPets } from '../../../src/api/endpoints/pets';
import type { ApiResponse } from '../../../src/api/request';
import { InvalidResponseError, NotFoundError, RejectedError, ServiceError } from '../../../src/errors';

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };

/** An HttpClient whose one answer is `body` (already parsed, as send hands it on), with `status`. */
function answering(status: number, body: unknown): HttpClient {
  const response = { status, body, text: '', headers: {}, header: () => undefined, url: '', rate: {} } as unknown as ApiResponse;
  return { send: async () => response } as unknown as HttpClient;
}

describe('answers that are not what the specification says', () => {
  const list = (body: unknown) => listPets(answering(200, body), {});
  const get = (body: unknown) => getPet(answering(200, body), 1);
  const add = (body: unknown) => createPet(answering(201, body), { name: 'Rex', categoryId: 1 });

  it.each([
    { what: 'an object instead of Pets', call: () => list(PET), status: 200, message: /^the server's answer to GET \/pets is not what the specification says \(must be an array, not \{"id":1,"name":"Rex","categoryId":1,"status":"available"\}\)$/ },
    { what: 'an empty body', call: () => list(undefined), status: 200, message: /GET \/pets is not what the specification says \(the body is empty\)$/ },
    { what: 'an array with a non-Pet', call: () => list([PET, { name: 'Ghost', categoryId: 1 }]), status: 200, message: /GET \/pets is not what the specification says \(1\.id: missing\)$/ },
    { what: 'an array holding a string', call: () => list([1, 'two']), status: 200, message: /GET \/pets is not what the specification says \(0: must be an object, not 1\)$/ },
    { what: 'Pets instead of a Pet', call: () => get([PET]), status: 200, message: /^the server's answer to GET \/pets\/1 is not what the specification says \(/ },
    { what: 'a Pet without id', call: () => get({ name: 'Rex', categoryId: 1 }), status: 200, message: /GET \/pets\/1 is not what the specification says \(id: / },
    { what: 'an id that is a string', call: () => get({ id: '1', name: 'Rex', categoryId: 1 }), status: 200, message: /says \(id: must be a whole number \(int64\), not "1"\)$/ },
    { what: 'an id that is not whole', call: () => get({ ...PET, id: 1.5 }), status: 200, message: /GET \/pets\/1 is not what the specification says \(id: / },
    { what: 'another animal than the one asked for', call: () => get({ ...PET, id: 2 }), status: 200, message: /GET \/pets\/1 is not what the specification says \(id: 2, not 1\)$/ },
    { what: 'a Pet without name', call: () => get({ id: 1, categoryId: 1 }), status: 200, message: /GET \/pets\/1 is not what the specification says \(name: / },
    { what: 'a Pet without categoryId', call: () => get({ id: 1, name: 'Rex' }), status: 200, message: /GET \/pets\/1 is not what the specification says \(categoryId: / },
    { what: 'a categoryId that is not an integer', call: () => get({ ...PET, categoryId: 'one' }), status: 200, message: /GET \/pets\/1 is not what the specification says \(categoryId: / },
    { what: 'a status outside the enum', call: () => get({ ...PET, status: 'lost' }), status: 200, message: /says \(status: must be one of available, pending, sold, not "lost"\)$/ },
    { what: 'a created Pet without id', call: () => add({ name: 'Rex', categoryId: 1 }), status: 201, message: /POST \/pets is not what the specification says \(id: / },
  ])('$what → InvalidResponseError with the HTTP status', async ({ call, status, message }) => {
    const error = await call().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ code: 'invalid_response', status, exitCode: 7 });
    expect((error as Error).message).toMatch(message);
  });

  it('an answer that fits is returned as it came, with the fields the server adds beyond the specification', async () => {
    const extra = { ...PET, tags: ['good boy'], shelter: { id: 9007199254740995n } };
    await expect(list([extra])).resolves.toMatchObject({ pets: [extra] });
    await expect(get(extra)).resolves.toEqual(extra);
    // status is the one field a Pet may lack.
    await expect(get({ id: 1, name: 'Rex', categoryId: 1 })).resolves.toEqual({ id: 1, name: 'Rex', categoryId: 1 });
  });
});

describe('a POST that failed says what became of the animal, as the class the import tells outcomes by', () => {
  const failing = (error: Error) => ({ send: async () => Promise.reject(error) }) as unknown as HttpClient;
  const add = (http: HttpClient) =>
    createPet(http, { name: 'Rex', categoryId: 1 }).catch((caught: unknown) => caught as ServiceError);
  const CHECK = 'check with petctl pets list before adding it again';

  it('a 2xx whose body is no Pet: created', async () => {
    const error = await add(answering(201, { name: 'Rex', categoryId: 1 }));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ status: 201, hint: `the service answered 201, so the animal was created; ${CHECK}` });
  });

  it('a 5xx, with an Error body or without: perhaps; a 507 stored nothing, and a 4xx refused it: no hint', async () => {
    const maybe = `the animal may or may not have been created; ${CHECK}`;
    const body = { code: 'unavailable', message: 'down', status: 503 };
    const withBody = await add(failing(new ServiceError('down', { code: 'unavailable', status: 503, body })));
    expect(withBody).toBeInstanceOf(ServiceError);
    expect(withBody).toMatchObject({ message: 'down', code: 'unavailable', status: 503, body, hint: maybe });
    const bare = await add(failing(new InvalidResponseError('POST … failed with HTTP 502', 502)));
    expect(bare).toBeInstanceOf(InvalidResponseError);
    expect(bare).toMatchObject({ status: 502, hint: maybe });
    const full = new ServiceError('full', { code: 'insufficient_storage', status: 507 });
    for (const refused of [full, new RejectedError('bad', { code: 'bad', status: 400 }), new NotFoundError('no', { code: 'nf', status: 404 })]) {
      expect(await add(failing(refused))).toBe(refused);
    }
  });
});
