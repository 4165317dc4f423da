using store from '../db/schema';

service Shop @(path: '/odata') {
  entity Products as projection on store.Products;
}
