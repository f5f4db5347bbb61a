import fs from 'node:fs';
import { type RawRequestFlags, type RawRequestIo, buildRawRequest, checkFlags } from '../api/endpoints/raw-request';
import type { Context } from '../context';
import { InvalidResponseError, UsageError } from '../errors';
import { answerJson, renderBody, renderHead } from '../output/api-response';
import { writeResult } from '../output/records';
import { readWhole } from '../stdin';

/** What `petctl api` was asked (api-paginate.ts takes the same). */
export type ApiOptions = RawRequestFlags & { include: boolean; cache?: number };

/** The most petctl api reads for a request: /dev/zero, or a pipe that never ends, would fill the memory. */
const BODY_MAX = { bytes: 1024 ** 3, words: '1 GiB' };

/** What -F @file and --input read: files and stdin, through the context; Ctrl-C ends the read. */
export function requestIo(ctx: Context, max = BODY_MAX): RawRequestIo {
  const read = (source: NodeJS.ReadableStream, what: string) => {
    const most = 'the most petctl api reads for a request; nothing was sent';
    const error = () => new UsageError(`${what} is larger than ${max.words}, ${most}`);
    return readWhole(source, ctx.signal, { bytes: max.bytes, error });
  };
  return {
    readFile: (path) => read(fs.createReadStream(path), path),
    readStdin: () => read(ctx.io.stdin, 'standard input'),
  };
}

export async function apiRun(options: ApiOptions, ctx: Context): Promise<void> {
  const { method } = checkFlags(options);
  if (options.cache !== undefined && method !== 'GET') {
    const fieldsMadeItPost = options.method === undefined && options.input === undefined;
    throw new UsageError(
      `--cache applies to GET requests, not ${method}: a write is always sent, and clears the cached answers of its service`,
      fieldsMadeItPost ? 'fields without -X make a POST; add -X GET to send them as query parameters' : undefined,
    );
  }
  const { http, target } = await ctx.api();
  const request = await buildRawRequest(options, target.baseUrl, requestIo(ctx));
  // -i: the head of the final answer, an error's too (before the error on stderr); reset before every attempt.
  let head = '';
  if (options.include) {
    request.hooks = {
      beforeSend: () => void (head = ''),
      onAnswer: (answer) => (head = renderHead(answer, ctx.terminal.stdoutIsTerminal)),
    };
  }
  const answer = await http.send({ ...request, cacheForMs: options.cache }).finally(() => ctx.io.stdout.write(head));
  if (ctx.globals.query === undefined) {
    ctx.io.stdout.write(renderBody(answer.text, ctx.globals.output, ctx.terminal.stdoutIsTerminal));
    return;
  }
  const json = answerJson(answer.text);
  if (json === undefined) throw new InvalidResponseError(`${request.method} ${answer.url} answered ${answer.status} without a JSON body for --query`, answer.status);
  await writeResult(ctx, json.value, () => answer.text);
}
