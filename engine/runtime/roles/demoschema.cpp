#include "demoschema.h"

#include "pg/connection.h"
#include "schema/migrator.h"

namespace leader::roles {

using namespace std::chrono_literals;

void requireDemoSchema(pg::Connection &connection)
{
    const pg::Result missing = connection.exec("demo schema", R"sql(
SELECT string_agg(t, ', ' ORDER BY t)
  FROM unnest(ARRAY['tenants', 'subscriptions', 'watermark_history', 'invoices',
                    'provider_charges', 'dunning_runs', 'dunning_attempts', 'webhook_events',
                    'webhook_deliveries', 'email_outbox', 'external_effects', 'claim_log',
                    'fence_refusals']) t
 WHERE to_regclass(t) IS NULL
)sql",
                                               {}, 5s);
    if (!missing.isNull(0, 0))
        throw schema::SchemaError(connection.target() + " lacks the demo migrations (no "
                                  + std::string(missing.text(0, 0))
                                  + "); run leaderctl migrate --demo");
}

} // namespace leader::roles
