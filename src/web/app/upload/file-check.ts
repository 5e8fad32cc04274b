import { bytes } from "./units.ts";

/** What `GET /api/uploads/formats` answers: each extension with the content types that may go with it, and the largest size. */
export type UploadFormats = { formats: { extension: string; content_types: string[] }[]; max_size: number };

/** The little of a browser's File that the check reads (so it runs without a browser). */
export type ChosenFile = { name: string; type: string; size: number };

/** A file fit to upload, with the content type to sign it with; or the reason it is refused, in words. */
export type FileCheck = { ok: true; contentType: string } | { ok: false; reason: string };

const exact = (count: number) => `${count.toLocaleString("en-US")} bytes`;

const extensionOf = (name: string) => {
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
};

/**
 * Refuses, before anything is sent, what the API would refuse on sign (its 422): an extension that is not one of
 * the listed formats, an empty file, one over the largest size. The extension decides the format, as on the
 * server; the browser's own guess at the type (often empty, or a spelling of its own) is used only when it is
 * one of that format's types, else the format's first, canonical one.
 */
export function checkFile(file: ChosenFile, accepted: UploadFormats): FileCheck {
  const extension = extensionOf(file.name);
  const format = accepted.formats.find((candidate) => candidate.extension === extension);
  if (!format) {
    const names = accepted.formats.map((candidate) => candidate.extension).join(", ");
    return { ok: false, reason: `“${file.name}” is not an audio or video format we can transcribe. Choose a file of type ${names}.` };
  }
  if (file.size === 0) return { ok: false, reason: `“${file.name}” is empty.` };
  if (file.size > accepted.max_size) {
    // Just over the limit rounds to the limit itself ("2 GiB"): then the exact counts say what is wrong.
    const [size, limit] =
      bytes(file.size) === bytes(accepted.max_size) ? [exact(file.size), exact(accepted.max_size)] : [bytes(file.size), bytes(accepted.max_size)];
    return { ok: false, reason: `“${file.name}” is ${size}; files of up to ${limit} can be uploaded.` };
  }
  const browserType = file.type.split(";")[0]!.trim().toLowerCase();
  const contentType = format.content_types.includes(browserType) ? browserType : format.content_types[0];
  if (contentType === undefined) return { ok: false, reason: `The server lists no content type for .${extension} files.` };
  return { ok: true, contentType };
}

/** The `accept` attribute of the file input: the listed extensions, so the picker offers those files first. */
export const acceptAttribute = (accepted: UploadFormats) => accepted.formats.map((format) => `.${format.extension}`).join(",");
