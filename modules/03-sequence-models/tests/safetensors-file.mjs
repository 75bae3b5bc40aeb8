// Not a test: a safetensors file as the course's build writes one, made in JavaScript for the node and browser
// tests of the live model (live-sampling.test.mjs, site-live-demo.test.mjs).
//   safetensors({name: [shape, values]}, metadata, {dtype, headerPatch}) -> ArrayBuffer
export function safetensors(tensors, metadata = {}, {dtype = "F32", headerPatch = (h) => h} = {}) {
  let offset = 0;
  const header = {__metadata__: metadata};
  const parts = [];
  for (const [name, [shape, values]] of Object.entries(tensors)) {
    const data = values instanceof Float32Array ? values : Float32Array.from(values);
    header[name] = {dtype, shape, data_offsets: [offset, offset + data.byteLength]};
    parts.push(data);
    offset += data.byteLength;
  }
  let json = JSON.stringify(headerPatch(header));
  while ((8 + json.length) % 8) json += " ";                   // as the library pads it: aligned tensors
  const head = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + head.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let at = 8 + head.length;
  for (const p of parts) { out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at); at += p.byteLength; }
  return out.buffer;
}
