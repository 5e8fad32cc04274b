/** Matches the S3 error code (the SDK names the exception after it). */
export function isS3Error(error: unknown, code: string): boolean {
  const e = error as { name?: unknown; Code?: unknown } | null;
  return e?.name === code || e?.Code === code;
}

/** AWS says NoSuchUpload; Ceph RGW says NoSuchKey for the same thing (the upload's record is gone). */
export function isNoSuchUpload(error: unknown): boolean {
  return isS3Error(error, "NoSuchUpload") || isS3Error(error, "NoSuchKey");
}

export function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}
