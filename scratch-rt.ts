import { readFileSync, readdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { modelFromCsdlXml, csdlJsonFromXml, csdlJsonFromModel, modelFromCsdl, csdlXmlFromModel } from './src/index.js';
const dir = '/work/shared/conformance/metadata/';
const plain = (v: unknown) => JSON.parse(JSON.stringify(v));
function diff(a: any, b: any, path = ''): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return `${path}: ${JSON.stringify(a)?.slice(0,200)} vs ${JSON.stringify(b)?.slice(0,200)}`;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) { const d = diff(a[k], b[k], `${path}/${k}`); if (d) return d; }
  return `${path}: ?`;
}
for (const f of readdirSync(dir).filter((f) => f.endsWith('.xml'))) {
  try {
    const xml = readFileSync(dir + f, 'utf8');
    const json = plain(csdlJsonFromXml(xml));
    const m = modelFromCsdlXml(xml);
    const out = plain(csdlJsonFromModel(m));
    const d1 = diff(json, out);
    const out2 = plain(csdlJsonFromModel(modelFromCsdl(json)));
    const d2 = diff(json, out2);
    csdlXmlFromModel(m);
    console.log(f, d1 ?? 'XML→model→JSON ok', '|', d2 ?? 'JSON→model→JSON ok');
  } catch (e) { console.log(f, 'FAIL', (e as Error).stack?.slice(0, 500)); }
}
