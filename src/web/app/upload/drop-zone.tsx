import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

type DropZoneProps = {
  /** The file input's `accept` (the listed extensions), or undefined while they load. */
  accept: string | undefined;
  disabled: boolean;
  onChoose(file: File): void;
  children: ComponentChildren;
};

/**
 * A file input labelled "Audio or video file" (the keyboard's and screen reader's way, and the picker's) inside
 * a zone that also takes a file dropped on it. The input stays a real, visible input: a hidden one behind a
 * styled button loses its name, its focus ring or both.
 */
export function DropZone({ accept, disabled, onChoose, children }: DropZoneProps) {
  const [over, setOver] = useState(false);
  // A file dropped beside the zone would otherwise be opened by the browser, leaving the app mid-visit.
  useEffect(() => {
    const keep = (event: DragEvent) => event.preventDefault();
    addEventListener("dragover", keep);
    addEventListener("drop", keep);
    return () => {
      removeEventListener("dragover", keep);
      removeEventListener("drop", keep);
    };
  }, []);
  const onDragOver = (event: DragEvent) => {
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = disabled ? "none" : "copy";
    setOver(!disabled);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    const file = event.dataTransfer?.files[0];
    if (file && !disabled) onChoose(file);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping is the mouse's extra way; the file input inside is everyone's.
    <div class={over ? "drop-zone over" : "drop-zone"} onDragOver={onDragOver} onDragLeave={() => setOver(false)} onDrop={onDrop}>
      <label for="upload-file">Audio or video file</label>
      <input
        id="upload-file"
        type="file"
        accept={accept}
        disabled={disabled}
        aria-describedby="upload-file-hint"
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          if (file) onChoose(file);
        }}
      />
      <p id="upload-file-hint" class="hint">
        {children}
      </p>
    </div>
  );
}
