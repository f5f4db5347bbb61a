/** The two sides of a rule, each reached only through argv or HTTP: the built binary, and the sandbox. */

export { call, postJson, rawExchange, start as sandboxFor, FREE, PRO, BUSINESS, ENTERPRISE, fakeClock, type Reply as SandboxReply } from '../sandbox/helpers';
export { setupE2e, expectCleanError, expectPetctlHeaders, jsonError, runCli, tempDir, WAIT } from '../helpers/cli';
export { json, limitHeaders } from '../helpers/scripted-server';

export const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
