/** The model and rows bench/cap.ts serves by CAP (bench/cap/, CDS) and by odata-engine (bench/cap-ours.ts). */
import { defineModel } from '../src/index.js';

/** `Shop.Product`, of bench/handler.ts too; bench/cap/db/schema.cds says the same in CDS. */
export const shopModel = defineModel({
  namespace: 'Shop',
  entityTypes: { Product: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Decimal', stock: 'Edm.Int32' } } },
  entitySets: { Products: { type: 'Product' } },
});

export const CAP_ROWS = 2000;

/** The rows: `id` 1…2000, `name` 'product 00001'…, `price` (id mod 100) + 0.5, `stock` id mod 7. */
export function capRows(): { id: number; name: string; price: number; stock: number }[] {
  return Array.from({ length: CAP_ROWS }, (_, i) => ({
    id: i + 1,
    name: `product ${String(i + 1).padStart(5, '0')}`,
    price: ((i + 1) % 100) + 0.5,
    stock: (i + 1) % 7,
  }));
}
