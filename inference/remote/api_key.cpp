#include "inference/remote/api_key.h"

#include <QCoreApplication>
#include <QtGlobal>

namespace ts {

ResolvedKey resolveApiKey(const QString& explicit_key, const QString& env_name) {
  ResolvedKey out;
  out.env_name = env_name.trimmed();
  QByteArray raw;
  if (!explicit_key.isEmpty()) {
    raw = explicit_key.toUtf8();
  } else if (!out.env_name.isEmpty()) {
    if (!qEnvironmentVariableIsSet(out.env_name.toLocal8Bit().constData())) {
      out.state = KeyState::EnvUnset;
      return out;
    }
    raw = qgetenv(out.env_name.toLocal8Bit().constData());
  } else {
    return out;
  }
  const QByteArray trimmed = raw.trimmed();
  out.had_whitespace = trimmed.size() != raw.size();
  if (trimmed.isEmpty()) {
    out.state = KeyState::EnvEmpty;
    return out;
  }
  out.key = trimmed;
  out.state = KeyState::Present;
  return out;
}

QString authFixHint(const ResolvedKey& key) {
  switch (key.state) {
    case KeyState::NotConfigured:
      return QCoreApplication::translate(
          "ts::ApiKey",
          "No API key is configured for this provider: name the environment variable "
          "that holds it (for example TAOTOKEN_API_KEY) in the provider settings.");
    case KeyState::EnvUnset:
      return QString(QCoreApplication::translate(
                         "ts::ApiKey",
                         "The environment variable %1 is not set: run `export %1=<your key>` "
                         "in the shell that starts TokenScope, then try again."))
          .arg(key.env_name);
    case KeyState::EnvEmpty:
      return QString(QCoreApplication::translate(
                         "ts::ApiKey",
                         "The environment variable %1 is empty: put your key in it "
                         "(`export %1=<your key>`), then try again."))
          .arg(key.env_name);
    case KeyState::Present:
      break;
  }
  QString source =
      key.env_name.isEmpty()
          ? QCoreApplication::translate("ts::ApiKey", "The key")
          : QCoreApplication::translate("ts::ApiKey", "The key in %1").arg(key.env_name);
  QString hint = source + QCoreApplication::translate(
                              "ts::ApiKey",
                              " was sent and rejected: check that it is current and belongs to "
                              "this provider's base URL.");
  if (key.had_whitespace)
    hint += QCoreApplication::translate(
        "ts::ApiKey",
        " It had white space around it (a pasted newline?), which TokenScope trimmed "
        "before sending; check that nothing else was pasted with it.");
  return hint;
}

}  // namespace ts
