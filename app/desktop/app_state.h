// What the desktop app keeps while its window is rebuilt (View → Language switches the
// language without a restart, WindowSession): the providers' store, the keys, the chat
// (generation thread with the local engine and the conversation's exact token ids, run
// store, run log settings, the conversation shown), the local server with what its panel
// showed, the model manager (it holds the model it loaded last), the configuration in
// effect and the download hub. The window and the controllers that wire it (AppController)
// come and go; this stays, and is handed to each new AppController.
#pragma once
#include <QString>

#include "app/config/effective_config.h"
#include "app/config/provider_store.h"
#include "app/desktop/chat_controller.h"
#include "app/desktop/model_manager.h"
#include "app/desktop/provider_keys.h"
#include "app/desktop/serving_controller.h"

namespace ts {

struct AppState {
  // persist_providers = false: edits stay in memory (a provider given on the command line).
  AppState(ProviderStore store, QString log_dir, bool persist_providers)
      : providers(std::move(store)), persist_providers(persist_providers), models(nullptr) {
    chat.log.dir = std::move(log_dir);
  }
  ProviderStore providers;
  bool persist_providers;
  ProviderKeys keys;  // its keychain jobs must not die with a window's controllers
  ChatState chat;
  ServingState serving;
  ModelManager models;  // over the current window (AppController sets it)
  config::EffectiveConfig config;
  QString download_hub;  // "" the default (DownloadController)
};

}  // namespace ts
