import { LifecycleCode, type SalesOrder } from '@sales-order/contract';

import { scopeOf } from '../auth/scope.js';
import { stateConflict } from '../errors/domain-error.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { runTransition, type TransitionRequest } from './order-transition.js';
import type { OrderDeps } from './order-use-case.js';
import { prepareOrder, stateOf } from './order-write-model.js';
import { orderReadStore } from './store/order-read-store.js';
import { orderWriteStore } from './store/order-write-store.js';

/**
 * A cancelled order -> a new draft with its customer, location, date, lines, charges and
 * fulfilment fields, the next number of its series and `amended_from_id` naming it. The
 * cancelled order stays as it is; it can be amended once (a second amend is 409, naming the
 * draft the first one made). Answers the new draft.
 */
export const amendOrder = (deps: OrderDeps, id: number, request: TransitionRequest): Promise<SalesOrder> =>
  runTransition(deps, id, 'amend', request, async (tx, source) => {
    const amendment = await orderWriteStore.amendmentOf(tx, id);
    if (amendment !== null) {
      throw stateConflict('The order was already amended', [
        {
          path: 'status',
          message: `cancelled order ${id} was already amended into order ${amendment}`,
          code: LifecycleCode.invalidTransition,
          current_status: source.status,
        },
      ]);
    }
    const contents = await orderWriteStore.contentsOf(tx, id);
    const series = await orderReadStore.findSeries(
      tx,
      source.location_id,
      source.financial_year_id,
      scopeOf(request.access),
    );
    // The order refers to both, and master rows are deactivated, never deleted.
    const references = {
      location: { id: source.location_id, code: series.location_code! },
      financialYear: { id: source.financial_year_id, startDate: parseCalendarDate(series.year_start!) },
    };
    const draft = prepareOrder(
      {},
      { value: references, problems: [] },
      { action: 'amend', actor: request.access.subject, from: { id, state: stateOf(source, contents) } },
    ).value!;
    const [created] = await orderWriteStore.insertOrders(tx, [draft], deps.orderNumberMaxAhead);
    return created!.id;
  });
