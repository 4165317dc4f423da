namespace store;
// The model of bench/handler.ts and bench/cap.ts: Shop.Product in odata-engine's TypeScript model.
entity Products {
  key id    : Integer;
      name  : String;
      price : Decimal;
      stock : Integer;
}
