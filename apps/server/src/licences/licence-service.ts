import type { LicenceValidation, ValidateLicenceBody } from '@sales-order/contract';
import type { PrismaClient } from '../generated/prisma/client.js';

// Licence rules arrive with issue 3; until then the route answers 500.
export const createLicenceService = (_prisma: PrismaClient) => ({
  async validate(_body: ValidateLicenceBody): Promise<LicenceValidation> {
    throw new Error('validate-licence is not implemented yet');
  },
});
