/**
 * The file name the API gave an export (`Content-Disposition`, RFC 6266): the full UTF-8 `filename*` when
 * there is one, the ASCII `filename` otherwise, `fallback` when the header is missing or unreadable.
 */
export function attachmentName(disposition: string | null, fallback: string): string {
  if (disposition) {
    const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
    if (extended) {
      try {
        return decodeURIComponent(extended[1]!.trim());
      } catch {}
    }
    const plain = /filename\s*=\s*"((?:[^"\\]|\\.)*)"|filename\s*=\s*([^;]+)/i.exec(disposition);
    const name = plain?.[1]?.replace(/\\(.)/g, "$1") ?? plain?.[2]?.trim();
    if (name) return name;
  }
  return fallback;
}

/**
 * Hands a file to the browser's downloads. Exports need the bearer token, which a plain link cannot send, so
 * the file is fetched by the app and saved from a `blob:` URL through a link with `download` (the page's
 * CSP allows no other origin, and this needs none). The URL is released once the browser has taken it.
 */
export function saveFile(file: Blob, name: string): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
