import { RecordPanel } from "../record/record-panel.tsx";
import { useTitle } from "../ui/navigation.tsx";
import { FileUpload } from "../upload/file-upload.tsx";
import { LinkForm } from "../upload/link-form.tsx";

/**
 * A new transcription: from a file of one's own (uploaded in parts, straight to storage), from the microphone
 * (recorded in the page, then uploaded the same way), or from a link.
 */
export default function NewTranscription() {
  useTitle("New transcription");
  return (
    <section class="new-transcription">
      <h1>New transcription</h1>
      <section aria-labelledby="upload-heading">
        <h2 id="upload-heading">Upload a file</h2>
        <FileUpload />
      </section>
      <section aria-labelledby="record-heading">
        <h2 id="record-heading">Or record from the microphone</h2>
        <RecordPanel />
      </section>
      <section aria-labelledby="link-heading">
        <h2 id="link-heading">Or transcribe from a link</h2>
        <LinkForm />
      </section>
    </section>
  );
}
