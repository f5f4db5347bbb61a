/** The `code` of every Error body the sandbox sends, with its status: docs/sandbox.md ("Error codes") says when each is sent. */
export const SANDBOX_ERROR_CODES = {
  invalid_json: 400,
  invalid_body: 400,
  missing_field: 400,
  invalid_field: 400,
  unknown_field: 400,
  invalid_parameter: 400,
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  pet_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  key_banned: 429,
  internal_error: 500,
  service_unavailable: 503,
  insufficient_storage: 507,
} as const;

export type SandboxErrorCode = keyof typeof SANDBOX_ERROR_CODES;

export class SandboxHttpError extends Error {
  readonly status: number;

  constructor(
    readonly code: SandboxErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.status = SANDBOX_ERROR_CODES[code];
  }
}

/** The sandbox does not start, or answers 500. */
export class SandboxDataFileError extends Error {
  constructor(file: string, problem: string, options?: ErrorOptions) {
    super(`sandbox data file ${file} ${problem}; fix or move it (the sandbox does not overwrite it)`, options);
    this.name = 'SandboxDataFileError';
  }
}
