// The endpoint of a provider with its API key filled in, wherever the key lives: an
// environment variable (read by the client itself), the plaintext key file, or the
// keychain (asynchronous). Chat, the model list and benchmarks all start this way.
#pragma once
#include <QObject>
#include <QPointer>
#include <functional>

#include "app/config/key_store.h"
#include "inference/remote/openai_client.h"
#include "inference/stream/provider_settings.h"

namespace ts {

class ProviderKeys : public QObject {
  Q_OBJECT
 public:
  explicit ProviderKeys(QObject* parent = nullptr) : QObject(parent) {}
  // Calls `ready` with the endpoint (error empty), or with an empty endpoint and why the
  // key could not be read. At once, or later for the keychain: not at all once `receiver`
  // is gone (these keys outlive the window's controllers, which a language switch rebuilds).
  using Ready = std::function<void(RemoteEndpoint endpoint, QString error)>;
  void resolve(const ProviderSettings& provider, const QObject* receiver, Ready ready);
  KeyStore& store() { return store_; }

 private:
  KeyStore store_;
};

}  // namespace ts
