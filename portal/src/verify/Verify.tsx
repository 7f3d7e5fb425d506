import { CopyButton } from '../shared/ui';

const NODE_SNIPPET = `import { verifyWebhook } from '@community-platform/client'; // clients/typescript

// rawBody: the request body exactly as received (a string or Buffer), before JSON parsing
const event = verifyWebhook(request.headers, rawBody, process.env.WEBHOOK_SECRET);
// throws WebhookVerificationError when the signature or timestamp is wrong; event is the parsed body`;

const PYTHON_SNIPPET = `from community_platform import verify_webhook  # clients/python

# raw_body: the request body exactly as received (bytes), before JSON parsing
event = verify_webhook(request.headers, raw_body, os.environ["WEBHOOK_SECRET"])
# raises when the signature or timestamp is wrong; event is the parsed body`;

export function Verify() {
  return (
    <section aria-labelledby="verify-title">
      <h2 id="verify-title">Verify signatures</h2>
      <p>
        Every delivery is signed (Standard Webhooks). Check it with the endpoint's secret before trusting the
        body.
      </p>
      <h3>Node</h3>
      <pre>{NODE_SNIPPET}</pre>
      <CopyButton text={NODE_SNIPPET} label="Copy Node snippet" />
      <h3>Python</h3>
      <pre>{PYTHON_SNIPPET}</pre>
      <CopyButton text={PYTHON_SNIPPET} label="Copy Python snippet" />
    </section>
  );
}
