/**
 * `attachment` with an ASCII `filename` for old clients and an RFC 5987 `filename*` carrying the
 * real (UTF-8) name, as RFC 6266 section 4.3 recommends. Shared by both blob adapters so a download
 * looks the same whichever serves it.
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(fileName)}`;
}

function encodeRfc5987(value: string): string {
  // encodeURIComponent leaves ' ( ) * unescaped, which RFC 5987's attr-char does not allow.
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
