import { spawn } from 'node:child_process';
import { BIN, type CliResult, NODE, cleanEnv } from './cli';

/** Runs a command line as a person pastes it into bash, `petctl` being the built binary. */
export function inBash(command: string, env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `petctl() { "$TEST_NODE" "$TEST_BIN" "$@"; }\n${command}`], {
      env: cleanEnv({ ...env, TEST_NODE: NODE, TEST_BIN: BIN }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
