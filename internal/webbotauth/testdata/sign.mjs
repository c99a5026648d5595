// Signs requests with web-bot-auth, Cloudflare's reference implementation
// of Web Bot Auth, and prints the headers it adds, for the Go tests to
// verify: an implementation independent of the one under test.
//
// Usage: node sign.mjs '<JSON>'
// where JSON is {"jwk": {...}, "requests": [{"url", "method", "headers",
// "components", "created", "expires"}]}, created and expires in Unix
// seconds and components optional (the package's default then). It prints
// one {"signature", "signatureInput"} per request, as a JSON array.
//
// "web-bot-auth" resolves from the repository's node_modules.
import { argv, stdout } from "node:process";
import { signatureHeaders } from "web-bot-auth";
import { signerFromJWK } from "web-bot-auth/crypto";

// Node's fetch API, a global.
const { Request } = globalThis;

const { jwk, requests } = JSON.parse(argv[2]);
const signer = await signerFromJWK(jwk);
const out = [];
for (const req of requests) {
  const request = new Request(req.url, { method: req.method, headers: req.headers });
  const params = {
    created: new Date(req.created * 1000),
    expires: new Date(req.expires * 1000),
  };
  if (req.components) {
    params.components = req.components;
  }
  const headers = await signatureHeaders(request, signer, params);
  out.push({ signature: headers["Signature"], signatureInput: headers["Signature-Input"] });
}
stdout.write(JSON.stringify(out) + "\n");
