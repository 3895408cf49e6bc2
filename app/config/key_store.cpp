#include "app/config/key_store.h"

#include <qt6keychain/keychain.h>
#include <QCoreApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDir>
#include <QFile>
#include <QSaveFile>

#include "app/config/effective_config.h"

namespace ts {
namespace {

constexpr const char* kSecretsService = "org.freedesktop.secrets";

QString keychainError(QKeychain::Error code, const QString& detail, const QString& action) {
  QString why;
  switch (code) {
    case QKeychain::EntryNotFound:
      why = QCoreApplication::translate(
          "ts::KeyStore", "no key is stored for it yet: set one under Provider → API key…");
      break;
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
      why = QCoreApplication::translate(
          "ts::KeyStore",
          "the keychain refused access (is it locked? unlock it, for example by logging in "
          "to the desktop session, then try again)");
      break;
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
      why = QCoreApplication::translate("ts::KeyStore", "no keychain is available on this system");
      break;
    default: {
      const KeychainStatus status = KeyStore::probe();
      why = status.available ? detail : status.reason;
    }
  }
  return QCoreApplication::translate("ts::KeyStore",
                                     "Could not %1 the API key in the keychain: %2.")
      .arg(action, why);
}

QString safeFileName(const QString& provider) {
  QString name;
  for (const QChar c : provider)
    name += c.isLetterOrNumber() || c == '-' || c == '_' ? c : QChar('_');
  return name.isEmpty() ? QString("provider") : name;
}

}  // namespace

KeychainStatus KeyStore::probe() {
  if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS") &&
      qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR"))
    return {false,
            tr("no Secret Service is reachable: there is no D-Bus session bus "
               "(DBUS_SESSION_BUS_ADDRESS is not set). Use an environment variable for the key")};
  QDBusConnection bus = QDBusConnection::sessionBus();
  if (!bus.isConnected())
    return {false, tr("no Secret Service is reachable: cannot connect to the D-Bus session bus (") +
                       bus.lastError().message() +
                       tr("). Use an environment variable for the key")};
  QDBusConnectionInterface* iface = bus.interface();
  const bool running = iface && iface->isServiceRegistered(kSecretsService).value();
  const bool activatable =
      iface && iface->activatableServiceNames().value().contains(kSecretsService);
  if (!running && !activatable)
    return {false, tr("no Secret Service is reachable: nothing provides org.freedesktop.secrets on "
                      "the session bus (install and start gnome-keyring or KWallet). Use an "
                      "environment variable for the key")};
  return {true, {}};
}

void KeyStore::write(const QString& provider, const QString& key,
                     std::function<void(QString)> done) {
  auto* job = new QKeychain::WritePasswordJob(kService, this);
  job->setKey(provider);
  job->setTextData(key);
  connect(job, &QKeychain::Job::finished, this, [done](QKeychain::Job* j) {
    done(j->error() == QKeychain::NoError
             ? QString()
             : keychainError(j->error(), j->errorString(),
                             QCoreApplication::translate("ts::KeyStore", "store")));
  });
  job->start();
}

void KeyStore::read(const QString& provider, std::function<void(QString, QString)> done) {
  auto* job = new QKeychain::ReadPasswordJob(kService, this);
  job->setKey(provider);
  connect(job, &QKeychain::Job::finished, this, [done](QKeychain::Job* j) {
    auto* read_job = static_cast<QKeychain::ReadPasswordJob*>(j);
    if (j->error() == QKeychain::NoError)
      done(read_job->textData(), {});
    else
      done({}, keychainError(j->error(), j->errorString(),
                             QCoreApplication::translate("ts::KeyStore", "read")));
  });
  job->start();
}

void KeyStore::remove(const QString& provider, std::function<void(QString)> done) {
  auto* job = new QKeychain::DeletePasswordJob(kService, this);
  job->setKey(provider);
  connect(job, &QKeychain::Job::finished, this, [done](QKeychain::Job* j) {
    const bool ok = j->error() == QKeychain::NoError || j->error() == QKeychain::EntryNotFound;
    done(ok ? QString()
            : keychainError(j->error(), j->errorString(),
                            QCoreApplication::translate("ts::KeyStore", "delete")));
  });
  job->start();
}

QString KeyStore::plaintextPath(const QString& provider) {
  return config::configDirectory() + "/keys/" + safeFileName(provider) + ".key";
}

QString KeyStore::writePlaintext(const QString& provider, const QString& key) {
  const QString path = plaintextPath(provider);
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile::setPermissions(QFileInfo(path).absolutePath(),
                        QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return tr("cannot write %1: %2").arg(path, file.errorString());
  // Restrict before any byte of the key is written.
  file.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
  file.write(key.toUtf8());
  if (!file.commit()) return tr("cannot write %1: %2").arg(path, file.errorString());
  QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
  return {};
}

QString KeyStore::readPlaintext(const QString& provider, QString* error) {
  QFile file(plaintextPath(provider));
  if (!file.open(QIODevice::ReadOnly)) {
    if (error)
      *error = tr("cannot read the key file %1: %2").arg(file.fileName(), file.errorString());
    return {};
  }
  return QString::fromUtf8(file.readAll()).trimmed();
}

void KeyStore::removePlaintext(const QString& provider) {
  QFile::remove(plaintextPath(provider));
}

}  // namespace ts
