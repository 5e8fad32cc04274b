/**
 * The media formats an upload may have (spec 4.3 leaves the list open; this is ours, published in the
 * docs/api.md and at `GET /api/uploads/formats`). Each extension lists the MIME types that may accompany it;
 * the first is the canonical one.
 */
export const supportedFormats: Readonly<Record<string, readonly string[]>> = {
  mp3: ["audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg-3"],
  m4a: ["audio/mp4", "audio/x-m4a", "audio/m4a"],
  aac: ["audio/aac", "audio/x-aac", "audio/aacp"],
  wav: ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"],
  flac: ["audio/flac", "audio/x-flac"],
  ogg: ["audio/ogg", "application/ogg", "video/ogg"],
  opus: ["audio/opus", "audio/ogg"],
  webm: ["video/webm", "audio/webm"],
  mp4: ["video/mp4", "audio/mp4"],
  mov: ["video/quicktime"],
  mkv: ["video/x-matroska", "video/matroska", "audio/x-matroska"],
};

export const supportedExtensions = Object.keys(supportedFormats);

/** The extension of a file name, lower-cased, without the dot ("" when there is none). */
export function extensionOf(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot + 1).toLowerCase();
}

/** `audio/MPEG; charset=x` → `audio/mpeg`. */
export function mediaTypeEssence(contentType: string): string {
  return contentType.split(";")[0]!.trim().toLowerCase();
}

export function isSupportedFileName(fileName: string): boolean {
  return Object.hasOwn(supportedFormats, extensionOf(fileName));
}

/** Whether the MIME type is one of those that go with the file name's extension. */
export function contentTypeMatches(fileName: string, contentType: string): boolean {
  const types = Object.hasOwn(supportedFormats, extensionOf(fileName)) ? supportedFormats[extensionOf(fileName)]! : [];
  return types.includes(mediaTypeEssence(contentType));
}

/** Field errors (spec 7) for a file name and content type, empty when both are acceptable. */
export function formatErrors(fileName: string, contentType: string, fields: { file: string; contentType: string }): Record<string, string[]> {
  if (!isSupportedFileName(fileName)) {
    return { [fields.file]: [`The ${fields.file.replaceAll("_", " ")} must be a file of type: ${supportedExtensions.join(", ")}.`] };
  }
  if (!contentTypeMatches(fileName, contentType)) {
    const expected = supportedFormats[extensionOf(fileName)]!.join(", ");
    return { [fields.contentType]: [`The content type does not match a .${extensionOf(fileName)} file; use one of: ${expected}.`] };
  }
  return {};
}

/** "Team call.final.mp3" → "Team call.final": the default task name. */
export function nameWithoutExtension(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const dot = base.lastIndexOf(".");
  const name = (dot <= 0 ? base : base.slice(0, dot)).trim();
  return name === "" ? base : name;
}

/**
 * A file name made safe for a blob key segment (`[A-Za-z0-9._-]`, no leading dot, at most 100
 * characters, the extension kept): accents are dropped, anything else becomes `_`.
 */
export function safeFileName(fileName: string, fallbackExtension = "bin"): string {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const ext = extensionOf(base).replace(/[^a-z0-9]/g, "") || fallbackExtension;
  const dot = base.lastIndexOf(".");
  const stem = (dot <= 0 ? base : base.slice(0, dot))
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._-]+/, "")
    .replace(/_+/g, "_")
    .slice(0, 90)
    .replace(/[._-]+$/, "");
  return `${stem || "file"}.${ext.slice(0, 8)}`;
}
