import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { parseCalendarDate } from '../../src/shared/calendar.js';

export interface LicenceInput {
  validFrom: string;
  validTo: string;
  /** Decimal text; null for an unlimited licence. */
  quantity: string | null;
  active?: boolean;
}

let sequence = 0;

/**
 * A product of its own for one test (so tests cannot use up each other's quotas) with the
 * licences given, written as the host ERP would. Licence numbers are `LIC-{code}-{n}`.
 */
export const createLicensedProduct = async (
  prisma: PrismaClient,
  { requiresLicence = true, licences = [] }: { requiresLicence?: boolean; licences?: LicenceInput[] } = {},
) => {
  sequence += 1;
  const code = `LP${String(sequence).padStart(3, '0')}`;
  const product = await prisma.product.create({
    data: { code, name: `Licensed Product ${code}`, requiresLicence },
    select: { id: true, code: true, name: true },
  });
  await prisma.productLicence.createMany({
    data: licences.map((licence, index) => ({
      productId: product.id,
      licenceNo: `LIC-${code}-${index + 1}`,
      validFrom: parseCalendarDate(licence.validFrom),
      validTo: parseCalendarDate(licence.validTo),
      licensedQuantity: licence.quantity,
      active: licence.active ?? true,
    })),
  });
  return product;
};
