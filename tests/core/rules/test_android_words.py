"""Android's words under the same rules: its permission dialogs as alerts, its destructive labels as commits.

The dialogs' texts are AOSP PermissionController's English strings (``res/values/strings.xml``:
``permgrouprequest_*`` and ``grant_dialog_button_*``, Android 10 to 14; android-facts.md §5.1).
"""

from __future__ import annotations

import pytest

import mobster_core as mc
from mobster_core._rules.device.alerts import (
    OPEN_IN,
    PERMISSION_APPS,
    AlertAnswer,
    AlertMode,
    AlertPolicy,
    AlertRefusal,
    decide,
    find_alert,
)
from mobster_core._rules.safety.safety import COMMIT_WORDS_BY_LANGUAGE, check_commit, classify
from mobster_core._rules.vocabulary.steps import Commit

GOOGLE = "com.google.android.permissioncontroller"
ANDROID_14 = ("While using the app", "Only this time", "Don\u2019t allow")
ANDROID_10 = ("Allow only while using the app", "Deny")


def dialog(app: str, message: str, buttons: tuple[str, ...]) -> mc.Screen:
    """A dialog's window as the Android reader gives it: the window an Alert, its texts and buttons inside."""
    children = [{"role": "StaticText", "label": message, "frame": [0.1, 0.4, 0.8, 0.05]}]
    children += [
        {"role": "Button", "label": b, "frame": [0.1, 0.5 + 0.06 * i, 0.8, 0.05]} for i, b in enumerate(buttons)
    ]
    return mc.Screen.from_dict(
        {"app": app, "elements": [{"role": "Alert", "frame": [0.05, 0.35, 0.9, 0.4], "children": children}]}
    )


ALLOW_CAMERA = AlertPolicy(AlertMode.SERVICES, allow=frozenset({"camera"}))


@pytest.mark.parametrize(
    ("message", "service"),
    [
        ("Allow YourApp to take pictures and record video?", "camera"),
        ("Allow YourApp to record audio?", "microphone"),
        ("Allow YourApp to access this device\u2019s location?", "location"),
        ("Allow YourApp to access this device's precise location?", "location"),
        ("Allow YourApp to access this device\u2019s location all the time?", "location-always"),
        ("Allow YourApp to send you notifications?", "notifications"),
        ("Allow YourApp to access your contacts?", "contacts"),
        ("Allow YourApp to access your calendar?", "calendar"),
        ("Allow YourApp to access photos and videos on this device?", "photos"),
        ("Allow YourApp to access photos, media, and files on your device?", "photos"),
        ("Allow YourApp to find, connect to, and determine the relative position of nearby devices?", "bluetooth"),
        ("Allow YourApp to access your physical activity?", "motion"),
    ],
)
def test_a_permission_dialog_says_its_service_in_aosps_words(message: str, service: str) -> None:
    alert = find_alert(dialog(GOOGLE, message, ANDROID_14))
    assert alert is not None
    assert alert.service == service


def test_the_permission_controllers_are_aosps_and_googles() -> None:
    assert frozenset({"com.android.permissioncontroller", GOOGLE}) == PERMISSION_APPS


@pytest.mark.parametrize(
    ("buttons", "accept", "decline"),
    [
        (ANDROID_14, "While using the app", "Don\u2019t allow"),
        (("While using the app", "Only this time", "Don't allow"), "While using the app", "Don't allow"),
        (ANDROID_10, "Allow only while using the app", "Deny"),
        (("Allow", "Deny"), "Allow", "Deny"),
        (("Allow", "Don\u2019t allow"), "Allow", "Don\u2019t allow"),
    ],
)
def test_android_buttons_are_chosen_by_their_words(buttons: tuple[str, ...], accept: str, decline: str) -> None:
    screen = dialog(GOOGLE, "Allow YourApp to take pictures and record video?", buttons)
    alert = find_alert(screen)
    assert alert is not None
    granted = decide(ALLOW_CAMERA, alert, opened_url=False)
    denied = decide(AlertPolicy(AlertMode.SERVICES, deny=frozenset({"camera"})), alert, opened_url=False)
    assert isinstance(granted, AlertAnswer)
    assert isinstance(denied, AlertAnswer)
    assert (granted.button, denied.button) == (accept, decline)


def test_an_unnamed_permission_is_refused_under_a_services_policy() -> None:
    alert = find_alert(dialog(GOOGLE, "Allow YourApp to send and view SMS messages?", ANDROID_14))
    assert alert is not None
    assert alert.service is None
    refused = decide(ALLOW_CAMERA, alert, opened_url=False)
    assert isinstance(refused, AlertRefusal)
    assert "its service isn't known" in refused.reason


def test_a_system_dialog_without_a_service_is_answered_by_order() -> None:
    # shirates-anr-dialog.xml: "Settings isn't responding" with Close app / Wait (list buttons of the dialog).
    alert = find_alert(dialog("android", "Settings isn't responding", ("Close app", "Wait")))
    assert alert is not None
    assert alert.service is None
    kept = decide(AlertPolicy(AlertMode.ACCEPT), alert, opened_url=False)
    assert isinstance(kept, AlertAnswer)
    assert kept.button == "Wait"
    failed = decide(AlertPolicy(), alert, opened_url=False)
    assert isinstance(failed, AlertRefusal)
    assert (
        failed.reason
        == "a system alert is in the way: “Settings isn't responding” (the check's alerts: policy is fail)"
    )


def test_the_open_with_chooser_is_the_open_in_prompt() -> None:
    alert = find_alert(dialog("android", "Open with", ("Just once", "Always")))
    assert alert is not None
    assert alert.service == OPEN_IN
    refused = decide(AlertPolicy(AlertMode.ACCEPT), alert, opened_url=False)
    assert isinstance(refused, AlertRefusal)
    assert "accepted only right after the check's launch.url" in refused.reason


@pytest.mark.parametrize(
    "label",
    [
        "Uninstall",
        "Clear storage",
        "Clear cache",
        "Move to bin",
        "Move to trash",
        "Desinstalar",
        "Mover a la papelera",
        "Deinstallieren",
        "Cache leeren",
        "In den Papierkorb verschieben",
        "卸载",
        "解除安裝",
        "移至回收站",
        "アンインストール",
    ],
)
def test_androids_destructive_labels_delete(label: str) -> None:
    assert classify(label, "Button") is Commit.DELETE


@pytest.mark.parametrize("label", ["Storage & cache", "App info", "Open by default", "Force stop", "Install"])
def test_androids_settings_rows_that_commit_nothing(label: str) -> None:
    assert classify(label, "Button") is None


# -- the ten languages Android brought (issue 40: the word tables in fifteen languages) --------------
# Each language's row: AOSP Settings' App info buttons (Uninstall, Clear storage, Clear cache), the
# Files and Photos apps' Move to trash, and a shop's, a mail app's and a social app's button.

FIFTEEN = {"en", "es", "de", "zh", "ja", "fr", "pt", "it", "nl", "pl", "tr", "ru", "ko", "id", "ar"}


@pytest.mark.parametrize(
    ("lang", "label", "commit"),
    [
        ("fr", "Désinstaller", Commit.DELETE),
        ("fr", "Vider l\u2019espace de stockage", Commit.DELETE),
        ("fr", "Vider le cache", Commit.DELETE),
        ("fr", "Mettre à la corbeille", Commit.DELETE),
        ("fr", "Acheter maintenant", Commit.PURCHASE),
        ("fr", "S\u2019abonner", Commit.PURCHASE),
        ("fr", "Envoyer", Commit.SEND),
        ("fr", "Publier", Commit.POST),
        ("pt", "Desinstalar", Commit.DELETE),
        ("pt", "Limpar armazenamento", Commit.DELETE),
        ("pt", "Limpar cache", Commit.DELETE),
        ("pt", "Mover para a lixeira", Commit.DELETE),
        ("pt", "Excluir conta", Commit.DELETE),
        ("pt", "Finalizar compra", Commit.PURCHASE),
        ("pt", "Compartilhar", Commit.SEND),
        ("pt", "Postar", Commit.POST),
        ("it", "Disinstalla", Commit.DELETE),
        ("it", "Cancella dati", Commit.DELETE),
        ("it", "Svuota cache", Commit.DELETE),
        ("it", "Sposta nel cestino", Commit.DELETE),
        ("it", "Acquista ora", Commit.PURCHASE),
        ("it", "Invia", Commit.SEND),
        ("it", "Pubblica", Commit.POST),
        ("nl", "Verwijderen", Commit.DELETE),
        ("nl", "Opslag wissen", Commit.DELETE),
        ("nl", "Cache wissen", Commit.DELETE),
        ("nl", "Nu kopen", Commit.PURCHASE),
        ("nl", "Verzenden", Commit.SEND),
        ("nl", "Plaatsen", Commit.POST),
        ("pl", "Odinstaluj", Commit.DELETE),
        ("pl", "Wyczyść pamięć", Commit.DELETE),
        ("pl", "Wyczyść pamięć podręczną", Commit.DELETE),
        ("pl", "Przenieś do kosza", Commit.DELETE),
        ("pl", "Kup teraz", Commit.PURCHASE),
        ("pl", "Wyślij", Commit.SEND),
        ("pl", "Opublikuj", Commit.POST),
        ("tr", "Yüklemeyi kaldır", Commit.DELETE),
        ("tr", "Depolama alanını temizle", Commit.DELETE),
        ("tr", "Önbelleği temizle", Commit.DELETE),
        ("tr", "SATIN AL", Commit.PURCHASE),
        ("tr", "Gönder", Commit.SEND),
        ("tr", "Yayınla", Commit.POST),
        ("ru", "Удалить", Commit.DELETE),
        ("ru", "Очистить хранилище", Commit.DELETE),
        ("ru", "Очистить кеш", Commit.DELETE),
        ("ru", "Переместить в корзину", Commit.DELETE),
        ("ru", "Купить", Commit.PURCHASE),
        ("ru", "Отправить", Commit.SEND),
        ("ru", "Опубликовать", Commit.POST),
        ("ko", "제거", Commit.DELETE),
        ("ko", "저장용량 비우기", Commit.DELETE),
        ("ko", "캐시 지우기", Commit.DELETE),
        ("ko", "휴지통으로 이동", Commit.DELETE),
        ("ko", "삭제하기", Commit.DELETE),  # inside the text: a verb's ending joins the word
        ("ko", "구매하기", Commit.PURCHASE),
        ("ko", "보내기", Commit.SEND),
        ("ko", "게시", Commit.POST),
        ("id", "Uninstal", Commit.DELETE),
        ("id", "Hapus penyimpanan", Commit.DELETE),
        ("id", "Hapus cache", Commit.DELETE),
        ("id", "Pindahkan ke sampah", Commit.DELETE),
        ("id", "Beli sekarang", Commit.PURCHASE),
        ("id", "Kirim", Commit.SEND),
        ("id", "Unggah", Commit.POST),
        ("ar", "إلغاء التثبيت", Commit.DELETE),
        ("ar", "محو السعة التخزينية", Commit.DELETE),
        ("ar", "محو ذاكرة التخزين المؤقت", Commit.DELETE),
        ("ar", "حذف", Commit.DELETE),
        ("ar", "اشتر الآن", Commit.PURCHASE),
        ("ar", "إرسال", Commit.SEND),
        ("ar", "نشر", Commit.POST),
    ],
)
def test_the_ten_languages_android_brought_commit(lang: str, label: str, commit: Commit) -> None:
    assert lang in COMMIT_WORDS_BY_LANGUAGE
    assert classify(label, "Button") is commit, (lang, label)
    assert check_commit(classify(label, "Button"), mc.DeviceKind.DEVICE).allowed is False


@pytest.mark.parametrize(
    "label",
    [
        "Forcer l\u2019arrêt",  # App info's Force stop, in each language: it commits nothing
        "Installer",
        "Historique des achats",
        "Forçar parada",
        "Armazenamento e cache",
        "Termina",
        "Memoria e cache",
        "Geforceerd stoppen",
        "Mehr wissen",  # German: "wissen" alone is no Dutch delete (only its phrases are)
        "Wymuś zatrzymanie",
        "Durmaya zorla",
        "Остановить",
        "Добавить в корзину",  # a shop's cart: корзина is a trash can and a cart, only its phrases delete
        "강제 중지",
        "구매 내역",
        "결제 수단",
        "Paksa berhenti",
        "فرض الإيقاف",
    ],
)
def test_the_ten_languages_settings_rows_that_commit_nothing(label: str) -> None:
    assert classify(label, "Button") is None, label


def test_the_tables_read_fifteen_languages() -> None:
    assert set(COMMIT_WORDS_BY_LANGUAGE) == FIFTEEN
