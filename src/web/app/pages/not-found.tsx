import { useTitle } from "../ui/navigation.tsx";

export function NotFound() {
  useTitle("Page not found");
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page at this address. <a href="/">Go to your transcriptions</a>.
      </p>
    </section>
  );
}
