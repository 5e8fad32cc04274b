/** Reads `Authorization: Bearer <token or key>`; anything else is no credential at all. */
export function bearerSecret(header: string | undefined | null): string | null {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1]! : null;
}
