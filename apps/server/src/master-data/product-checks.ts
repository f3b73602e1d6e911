import { type ErrorDetail, ValidationCode } from '@sales-order/contract';

interface ProductState {
  id: number;
  active: boolean;
}

/**
 * Reports every line whose product does not exist or is inactive (code `unknown_product`, at
 * `{path}.{index}.product_id`), and returns the products found by id. Orders and licence
 * validation refuse the same products with the same words.
 */
export const checkProductsUsable = <P extends ProductState>(
  lines: { product_id: number }[],
  products: P[],
  path: string,
  problems: ErrorDetail[],
): Map<number, P> => {
  const productsById = new Map(products.map((product) => [product.id, product]));
  lines.forEach((line, index) => {
    const product = productsById.get(line.product_id);
    if (!product?.active) {
      problems.push({
        path: `${path}.${index}.product_id`,
        message: `product ${line.product_id} ${product ? 'is inactive' : 'does not exist'}`,
        code: ValidationCode.unknownProduct,
      });
    }
  });
  return productsById;
};
