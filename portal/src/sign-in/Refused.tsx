/** A page that shows no session's data, and why. */
export function Refused({ message }: { message: string }) {
  return (
    <main class="narrow">
      <h1>Webhook portal</h1>
      <section class="card" role="alert" data-testid="refused">
        <h2>This portal page cannot be shown</h2>
        <p>{message}</p>
      </section>
    </main>
  );
}
