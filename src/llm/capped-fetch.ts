// The model's HTTP replies, read with a byte cap before anything parses them.
// The SDK would read and JSON.parse a reply of any size on the event loop: a
// 40 MB reply stalled /healthz for 7 s and left the process at 1.9 GB. A chat
// completion of a query plan or one SELECT is a few KB; past the cap the
// request is cut off and the caller told why.
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
    const declared = Number(response.headers.get('content-length'));
    if (declared > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new ReplyTooBigError(maxBytes);
    }
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new ReplyTooBigError(maxBytes);
      }
      chunks.push(value);
    }
    return new Response(Buffer.concat(chunks), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
