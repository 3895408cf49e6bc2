#include "app/desktop/provider_keys.h"

#include "app/config/provider_store.h"

namespace ts {

void ProviderKeys::resolve(const ProviderSettings& provider, const QObject* receiver, Ready ready) {
  const QString account = keychainAccount(provider);
  switch (provider.key_source) {
    case KeySource::Environment:
      return ready(endpointFor(provider), {});
    case KeySource::PlaintextFile: {
      QString error;
      RemoteEndpoint endpoint = endpointFor(provider);
      endpoint.api_key = KeyStore::readPlaintext(account, &error);
      if (!error.isEmpty()) return ready({}, tr("The API key could not be read: ") + error + ".");
      return ready(endpoint, {});
    }
    case KeySource::Keychain:
      store_.read(account, [provider, ready, guard = QPointer<const QObject>(receiver)](
                               QString key, QString error) {
        if (!guard) return;
        if (!error.isEmpty()) return ready({}, error);
        RemoteEndpoint endpoint = endpointFor(provider);
        endpoint.api_key = key;
        ready(endpoint, {});
      });
      return;
  }
}

}  // namespace ts
