// The model's HTTP replies, read with a byte cap before anything parses them.
// The SDK would read and JSON.parse a reply of any size on the event loop: a
// 40 MB reply stalled /healthz for 7 s and left the process at 1.9 GB. A chat
// completion of a query plan or one SELECT is a few KB; past the cap the
// request is cut off and the caller told why.
//
// The cap is applied while the SDK reads the body, not inside fetch: an error
// thrown from fetch is a connection failure to the SDK, which retried it, so a
// 300 KB reply was asked for four times. A body that errors is not retried.
import { bestEffort } from '../core/best-effort.js';

export class ReplyTooBigError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the LLM's reply was over ${Math.round(maxBytes / 1024)} KB, more than a query or a narration needs`);
    this.name = 'ReplyTooBigError';
  }
}

export function cappedFetch(maxBytes: number, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    const source = response.body;
    const declared = Number(response.headers.get('content-length'));
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let size = 0;
    const refuse = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
      await bestEffort(reader ? reader.cancel() : source.cancel(), 'cancelling a reply too big to read');
      controller.error(new ReplyTooBigError(maxBytes));
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (declared > maxBytes) return refuse(controller);
        reader ??= source.getReader();
        const { done, value } = await reader.read();
        if (done) return controller.close();
        size += value.byteLength;
        if (size > maxBytes) return refuse(controller);
        controller.enqueue(value);
      },
      cancel: (reason) => (reader ? reader.cancel(reason) : source.cancel(reason)),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
