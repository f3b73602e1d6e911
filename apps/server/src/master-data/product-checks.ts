import { type ErrorDetail, ValidationCode } from '@sales-order/contract';

import type { Checked } from '../errors/checked.js';

interface ProductState {
  id: number;
  active: boolean;
}

/**
 * The products found, by id, and a problem for every line whose product does not exist or is
 * inactive (code `unknown_product`, at `{path}.{index}.product_id`). Orders and licence
 * validation refuse the same products with the same words.
 */
export const checkProductsUsable = <P extends ProductState>(
  lines: readonly { product_id: number }[],
  products: P[],
  path: string,
): Checked<Map<number, P>> => {
  const productsById = new Map(products.map((product) => [product.id, product]));
  const problems = lines.flatMap((line, index): ErrorDetail[] => {
    const product = productsById.get(line.product_id);
    if (product?.active) return [];
    return [
      {
        path: `${path}.${index}.product_id`,
        message: `product ${line.product_id} ${product ? 'is inactive' : 'does not exist'}`,
        code: ValidationCode.unknownProduct,
      },
    ];
  });
  return { value: productsById, problems };
};
