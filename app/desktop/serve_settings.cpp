#include "app/desktop/serve_settings.h"

#include <qt6keychain/keychain.h>
#include <QCoreApplication>
#include <QPointer>
#include <QRandomGenerator>

#include "app/desktop/ui_settings.h"

namespace ts {

ui::ServeChoice loadServeChoice() {
  QSettings s = uiSettings();
  ui::ServeChoice c;
  c.every_network = s.value("serve/host", "127.0.0.1").toString() == "0.0.0.0";
  c.require_key = s.value("serve/requireKey", false).toBool();
  return c;
}

void saveServeChoice(const ui::ServeChoice& choice) {
  QSettings s = uiSettings();
  s.setValue("serve/host", serveHost(choice));
  s.setValue("serve/requireKey", choice.require_key);
}

QString serveHost(const ui::ServeChoice& choice) {
  return choice.every_network ? "0.0.0.0" : "127.0.0.1";
}

QString newServeKey() {
  QByteArray bytes(32, Qt::Uninitialized);
  QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(bytes.data()), 8);
  bytes.truncate(30);  // 240 bits: 40 base64url characters, no padding
  return "ts-" + QString::fromLatin1(bytes.toBase64(QByteArray::Base64UrlEncoding |
                                                    QByteArray::OmitTrailingEquals));
}

namespace {

// One store for the app's life: its jobs are its children.
KeyStore& longLivedStore() {
  static QPointer<KeyStore> store;
  if (!store) store = new KeyStore(QCoreApplication::instance());
  return *store;
}

}  // namespace

void ServeKeys::read(ReadDone done) {
  // QKeychain itself, to tell "none stored yet" (a key is then made) from a failure; the
  // job deletes itself once finished
  auto* job = new QKeychain::ReadPasswordJob(KeyStore::kService, QCoreApplication::instance());
  job->setKey(kServeKeyAccount);
  connect(job, &QKeychain::Job::finished, this, [this, done](QKeychain::Job* j) {
    auto* read_job = static_cast<QKeychain::ReadPasswordJob*>(j);
    if (j->error() == QKeychain::NoError && !read_job->textData().isEmpty())
      return done(read_job->textData(), false, {});
    if (j->error() == QKeychain::NoError || j->error() == QKeychain::EntryNotFound)
      return done({}, true, {});
    // the store words the failure as everywhere else (locked, no keychain, ...)
    longLivedStore().read(kServeKeyAccount,
                          [guard = QPointer(this), done](QString key, QString error) {
                            if (!guard) return;
                            if (error.isEmpty() && !key.isEmpty()) return done(key, false, {});
                            done({}, error.isEmpty(), error);  // empty: none stored after all
                          });
  });
  job->start();
}

void ServeKeys::replace(std::function<void(QString, QString)> done) {
  const QString key = newServeKey();
  longLivedStore().write(kServeKeyAccount, key, [guard = QPointer(this), key, done](QString error) {
    if (guard) done(error.isEmpty() ? key : QString(), error);
  });
}

}  // namespace ts
