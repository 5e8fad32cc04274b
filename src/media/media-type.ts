import { extensionOf, mediaTypeEssence, supportedFormats } from "./formats.ts";

/** The file name a response gives: Content-Disposition's, else the last segment of the URL's path. */
export function responseFileName(url: URL, contentDisposition: string | null): string {
  const star = contentDisposition && /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(contentDisposition);
  const plain = contentDisposition && /filename\s*=\s*"?([^";]+)"?/i.exec(contentDisposition);
  const fromUrl = url.pathname.split("/").filter(Boolean).pop();
  for (const candidate of [star?.[1], plain?.[1], fromUrl]) {
    if (!candidate) continue;
    try {
      const name = decodeURIComponent(candidate).trim();
      if (name) return name.slice(0, 255);
    } catch {
      // not percent-encoded after all: try the next one
    }
  }
  return "media";
}

/** The supported extension for a MIME type (its canonical format first), or null. */
export function extensionForType(contentType: string): string | null {
  const essence = mediaTypeEssence(contentType);
  const canonical = Object.entries(supportedFormats).find(([, types]) => types[0] === essence);
  const any = Object.entries(supportedFormats).find(([, types]) => types.includes(essence));
  return (canonical ?? any)?.[0] ?? null;
}

/** The canonical MIME type of a supported extension, or application/octet-stream. */
export function typeForExtension(extension: string): string {
  return Object.hasOwn(supportedFormats, extension) ? supportedFormats[extension]![0]! : "application/octet-stream";
}

/**
 * Whether a downloaded body is audio or video we can take: an audio/ or video/ type, or an untyped
 * (octet-stream) body whose file name has a supported extension. Returns the type to store, or null.
 */
export function mediaTypeOf(contentType: string | null, fileName: string): string | null {
  const essence = contentType ? mediaTypeEssence(contentType) : "";
  if (essence.startsWith("audio/") || essence.startsWith("video/") || essence === "application/ogg") return essence;
  const untyped = essence === "" || essence === "application/octet-stream" || essence === "binary/octet-stream";
  if (untyped && Object.hasOwn(supportedFormats, extensionOf(fileName))) return typeForExtension(extensionOf(fileName));
  return null;
}
