// Drives trtmc-server through the official OpenAI Node SDK (pinned in node/package-lock.json).
//
// Run by server/sdk_test.go with NODE_PATH at the installed node_modules: argv[2] is a JSON
// object (urls, key, models, clip paths). The same calls as sdk_check.py, printed as one JSON
// object of observations under the same names, so that one table in the Go test judges both.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const { OpenAI, APIError, toFile } = require('openai');

const cfg = JSON.parse(process.argv[2]);
const out = { sdk_version: require('openai/version').VERSION };

// failure is what the SDK tells its user about a refused call.
function failure(e) {
  if (!(e instanceof APIError)) throw e;
  return { error: { class: e.constructor.name, status: e.status, code: e.code ?? null, type: e.type ?? null,
    param: e.param ?? null, request_id: e.requestID ?? null } };
}

async function observe(name, call) {
  try {
    out[name] = await call();
  } catch (e) {
    out[name] = failure(e);
  }
}

// fetchPlain downloads as an <img> or curl would: no SDK, no API key unless given.
async function fetchPlain(url, headers = {}) {
  const r = await fetch(url, { headers });
  const body = Buffer.from(await r.arrayBuffer());
  if (!r.ok) return { status: r.status, code: JSON.parse(body.toString()).error.code };
  return { status: r.status, png: body.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
    sha256: crypto.createHash('sha256').update(body).digest('hex') };
}

const client = new OpenAI({ baseURL: cfg.url + '/v1', apiKey: 'unused', maxRetries: 0 });
const keyed = new OpenAI({ baseURL: cfg.key_url + '/v1', apiKey: cfg.key, maxRetries: 0 });
const clip = fs.readFileSync(cfg.clip);
const { asr_model: asr, qa_model: qa, image_model: image } = cfg;
const wav = (name, data) => toFile(data, name, { type: 'audio/wav' });
const transcribe = async (params, options) =>
  client.audio.transcriptions.create({ model: asr, file: await wav('clip.wav', clip), ...params }, options);
// Node's equivalent of Python's extra_body: extra fields of the params are sent as they are.
const steering = { seed: 7, num_inference_steps: 6, guidance_scale: 5.0 };
const audioPart = { type: 'input_audio', input_audio: { data: clip.toString('base64'), format: 'wav' } };
const isPNG = (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

async function imageURL(c, headers) {
  const r = await c.images.generate({ model: image, prompt: cfg.prompt, size: '128x128', response_format: 'url', ...steering });
  const url = r.data[0].url;
  const got = { download: await fetchPlain(url, headers) };
  if (c === keyed) {
    // The signature is what lets the download through: altered or left out, the key is needed.
    got.tampered = await fetchPlain(url.slice(0, -1) + (url.endsWith('0') ? '1' : '0'));
    got.unsigned = await fetchPlain(url.split('?')[0]);
    got.unsigned_with_key = await fetchPlain(url.split('?')[0], { Authorization: 'Bearer ' + cfg.key });
  }
  return got;
}

async function tasksRunning() {
  const text = await (await fetch(cfg.url + '/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith('trtmc_task_calls_running '));
  return line ? Number(line.split(' ')[1]) : 0;
}

// whileBusy runs call while a long transcription holds the model's one lane (the server runs
// with one lane and no queue), so that the call's first attempt is answered 429 server_busy.
async function whileBusy(name, call) {
  const longClip = fs.readFileSync(cfg.long_clip);
  const blocker = {};
  let done = false;
  const blocking = (async () => {
    try {
      const r = await client.audio.transcriptions.create({ model: asr, file: await wav('long.wav', longClip) },
        { headers: { 'X-Request-ID': `${cfg.id_prefix}-blocker-${name}` } });
      blocker.text = r.text;
    } catch (e) {
      Object.assign(blocker, failure(e));
    } finally {
      done = true;
    }
  })();
  for (let i = 0; i < 3000 && !done && (await tasksRunning()) < 1; i++) { // bounded: 30 s
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  let got;
  try {
    got = await call();
  } catch (e) {
    got = failure(e);
  }
  await blocking;
  return { call: got, blocker };
}

async function main() {
  await observe('transcribe_json', async () => {
    const r = await transcribe({ response_format: 'json', language: 'en', temperature: 0, stream: false },
      { headers: { 'X-Request-ID': cfg.id_prefix + '-transcribe' } });
    return { text: r.text, request_id: r._request_id };
  });
  await observe('transcribe_text', async () => ({ text: await transcribe({ response_format: 'text' }) }));
  await observe('transcribe_verbose', async () => {
    const r = await transcribe({ response_format: 'verbose_json', timestamp_granularities: ['segment'] });
    return { text: r.text, language: r.language, duration: r.duration,
      segments: (r.segments ?? []).map((s) => ({ start: s.start, end: s.end, text: s.text })) };
  });
  await observe('transcribe_stream', async () => {
    const chunks = [];
    for await (const c of await transcribe({ stream: true })) chunks.push(c);
    return chunks;
  });
  await observe('transcribe_words', async () => (await transcribe({ response_format: 'verbose_json', timestamp_granularities: ['word'] })).text);
  await observe('transcribe_temperature', async () => (await transcribe({ temperature: 0.7 })).text);

  await observe('image_b64', async () => {
    const r = await client.images.generate({ model: image, prompt: cfg.prompt, size: '128x128', ...steering });
    const data = Buffer.from(r.data[0].b64_json, 'base64');
    return { count: r.data.length, png: isPNG(data), sha256: crypto.createHash('sha256').update(data).digest('hex'), created: r.created };
  });
  await observe('image_url', () => imageURL(client));
  await observe('image_url_key', () => imageURL(keyed));
  await observe('image_noops', async () => ({ count: (await client.images.generate({ model: image, prompt: cfg.prompt, size: '128x128',
    quality: 'standard', style: 'vivid', user: 'sdk-user' })).data.length }));
  await observe('image_quality_hd', async () => (await client.images.generate({ model: image, prompt: cfg.prompt, quality: 'hd' })).created);

  await observe('chat', async () => {
    const r = await client.chat.completions.create({ model: qa, messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: [{ type: 'text', text: cfg.first_question }, audioPart] },
      { role: 'assistant', content: '(an earlier answer)' },
      { role: 'user', content: cfg.question },
    ] });
    return { content: r.choices[0].message.content, role: r.choices[0].message.role, created: r.created,
      model: r.model, object: r.object, request_id: r._request_id };
  });
  await observe('chat_noops', async () => {
    const r = await client.chat.completions.create({ model: qa, n: 1, modalities: ['text'], user: 'sdk-user',
      response_format: { type: 'text' }, logprobs: false, temperature: 0, max_tokens: 16,
      messages: [{ role: 'user', name: 'ann', content: [{ type: 'text', text: cfg.question }, audioPart] }] });
    return { content: r.choices[0].message.content };
  });
  await observe('chat_n2', async () => (await client.chat.completions.create({ model: qa, n: 2,
    messages: [{ role: 'user', content: [{ type: 'text', text: cfg.question }, audioPart] }] })).id);

  const entry = (m) => ({ id: m.id, created: m.created, object: m.object, owned_by: m.owned_by });
  await observe('models_list', async () => {
    const models = [];
    for await (const m of client.models.list()) models.push(entry(m));
    return { models };
  });
  await observe('models_retrieve', async () => entry(await client.models.retrieve(asr)));
  await observe('models_retrieve_missing', async () => (await client.models.retrieve('no-such-model')).id);
  await observe('wrong_model', async () => (await client.audio.transcriptions.create({ model: 'no-such-model', file: await wav('clip.wav', clip) })).text);
  await observe('wrong_key', async () => (await new OpenAI({ baseURL: cfg.key_url + '/v1', apiKey: 'wrong-' + cfg.key, maxRetries: 0 }).models.list()).data);
  await observe('keyed_models', async () => (await keyed.models.list()).data.map((m) => m.id));

  const retrying = client.withOptions({ maxRetries: 2 });
  const busyCall = (headers) => async () => ({ text: (await retrying.audio.transcriptions.create(
    { model: asr, file: await wav('clip.wav', clip) }, { headers })).text });
  await observe('busy', () => whileBusy('busy', busyCall({})));
  await observe('busy_own_id', () => whileBusy('own', busyCall({ 'X-Request-ID': cfg.id_prefix + '-busy' })));
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
