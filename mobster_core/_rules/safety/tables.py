"""The tables safety's rules read (``safety``): commit words, harmless phrases, prices, roles, refusals.

Each is a rule's table, named by the rule of ``safety`` that reads it: the commit words by language
(Rule 4, in Rule 7's order once merged), the harmless phrases (Rule 5), the read-only roles (Rule 2),
the currencies and periods of a price (Rule 6), and what each kind of device refuses (Rule 8).
Entries are written as people write them; ``safety`` folds them (Rule 3) before it compares.
"""

from __future__ import annotations

from collections.abc import Mapping

from mobster_core._rules.device.device import DeviceKind
from mobster_core._rules.vocabulary.steps import Commit

__all__ = [
    "COMMIT_WORDS",
    "COMMIT_WORDS_BY_LANGUAGE",
    "CURRENCY_CODES",
    "CURRENCY_SYMBOLS",
    "HARMLESS_PHRASES",
    "PERIOD_WORDS",
    "READ_ONLY_ROLES",
    "REFUSED",
]

#: Rule 4's table, by language and by what the words commit. A multi-word entry matches as a
#: phrase; an entry in Chinese, Japanese or Korean matches anywhere in the text. Imperatives and the
#: infinitive, with their common inflections; not the past participle ("Sent", "Deleted" name
#: mailboxes and albums) and not the "-ing" form ("Sending…" is a status).
COMMIT_WORDS_BY_LANGUAGE: Mapping[str, Mapping[Commit, tuple[str, ...]]] = {
    "en": {
        Commit.PURCHASE: (
            "buy", "buy now", "purchase", "subscribe", "resubscribe", "subscription", "pay", "payment",
            "order", "place order", "checkout", "check out", "rent", "trial", "start free trial", "try free",
            "add funds", "add money", "top up", "redeem", "donate", "transfer", "send money", "request money",
        ),
        Commit.DELETE: (
            "delete", "unsend", "remove", "erase", "discard", "trash", "wipe", "reset", "clear all", "clear history",
            "clear data", "empty trash", "empty bin", "deactivate", "unsubscribe", "close account",
            "close my account",
            # Android's: App info, Settings, Files and Photos
            "uninstall", "clear storage", "clear cache", "move to bin", "move to trash",
        ),
        Commit.SEND: (
            "send", "resend", "reply", "reply all", "share", "forward", "invite", "submit", "call", "dial",
            "facetime",
        ),
        Commit.POST: ("post", "repost", "publish", "tweet", "retweet", "comment", "upload"),
    },
    "es": {
        Commit.PURCHASE: (
            "comprar", "compra", "compre", "comprar ahora", "suscribirse", "suscribirme", "suscribir",
            "suscribete", "suscribase", "suscripcion", "pagar", "paga", "pague", "pago", "pedir", "pedido",
            "realizar pedido", "tramitar pedido", "alquilar", "prueba gratis", "prueba gratuita", "canjear",
            "donar", "transferir", "enviar dinero",
        ),
        Commit.DELETE: (
            "eliminar", "elimina", "elimine", "borrar", "borra", "borre", "quitar", "quita", "quite",
            "suprimir", "descartar", "vaciar", "restablecer", "desactivar", "cerrar cuenta", "desinstalar",
            "mover a la papelera",
        ),
        Commit.SEND: (
            "enviar", "envia", "envie", "reenviar", "responder", "responder a todos", "compartir", "comparte",
            "invitar", "invita", "llamar",
        ),
        Commit.POST: ("publicar", "publica", "publique", "comentar", "comenta", "subir", "tuitear"),
    },
    "de": {
        Commit.PURCHASE: (
            "kaufen", "kaufe", "jetzt kaufen", "bestellen", "bestelle", "bestellung aufgeben", "bezahlen",
            "zahlen", "zahle", "abonnieren", "abonniere", "abo", "abonnement", "abo abschliessen", "mieten",
            "leihen", "kostenlos testen", "gratis testen", "probeabo", "einlosen", "spenden", "uberweisen",
            "geld senden",
        ),
        Commit.DELETE: (
            "loschen", "losche", "loeschen", "entfernen", "entferne", "verwerfen", "zurucksetzen",
            "papierkorb leeren", "deaktivieren", "konto schliessen", "deinstallieren", "cache leeren",
            "in den papierkorb",
        ),
        Commit.SEND: (
            "senden", "sende", "absenden", "versenden", "verschicken", "schicken", "abschicken", "antworten",
            "allen antworten", "weiterleiten", "teilen", "einladen", "anrufen", "einreichen",
        ),
        Commit.POST: ("posten", "poste", "veroffentlichen", "veroeffentlichen", "kommentieren", "hochladen"),
    },
    "zh": {
        Commit.PURCHASE: (
            "购买", "購買", "买入", "下单", "提交订单", "支付", "付款", "结账", "結帳", "结算", "订阅", "訂閱",
            "续订", "开通会员", "免费试用", "租借", "兑换", "充值", "转账", "轉帳", "打赏", "捐款",
        ),
        Commit.DELETE: (
            "删除", "刪除", "抹掉", "清除", "移除", "清空", "还原", "重置", "注销", "丢弃", "卸载", "解除安裝",
            "移至回收站",
        ),
        Commit.SEND: ("发送", "發送", "回复", "回覆", "转发", "轉寄", "分享", "邀请", "拨打", "提交"),
        Commit.POST: ("发布", "發佈", "发表", "發表", "评论", "評論", "上传", "上傳", "发帖"),
    },
    "ja": {
        Commit.PURCHASE: (
            "購入", "買う", "注文", "支払", "決済", "購読", "無料トライアル", "トライアルを開始", "レンタル",
            "引き換え", "チャージ", "送金", "寄付", "レジに進む",
        ),
        Commit.DELETE: (
            "削除", "消去", "取り除く", "除去", "破棄", "リセット", "ゴミ箱に移動", "退会", "アンインストール",
        ),
        Commit.SEND: ("送信", "送る", "転送", "返信", "共有", "シェア", "招待", "発信", "電話をかける", "提出"),
        Commit.POST: ("投稿", "公開", "ツイート", "コメント", "アップロード"),
    },
    # The ten below came with Android (issue 40): the words of AOSP's Settings, Files and Photos
    # buttons in each language (Uninstall, Clear storage, Clear cache, Move to trash) and the
    # common shop, mail and social verbs; docs/safety.md says where each came from.
    "fr": {
        Commit.PURCHASE: (
            "acheter", "achetez", "acheter maintenant", "payer", "payez", "commander", "passer la commande",
            "passer commande", "s'abonner", "abonnez-vous", "se réabonner", "louer", "essai gratuit",
            "essayer gratuitement", "faire un don", "virement", "envoyer de l'argent",
        ),
        Commit.DELETE: (
            "supprimer", "supprime", "supprimez", "effacer", "effacez", "retirer", "enlever", "réinitialiser",
            "désactiver", "fermer le compte", "se désabonner", "vider la corbeille", "mettre à la corbeille",
            "placer dans la corbeille", "désinstaller", "vider le cache", "vider l'espace de stockage",
            "effacer les données",
        ),
        Commit.SEND: (
            "envoyer", "envoyez", "renvoyer", "répondre", "répondre à tous", "partager", "transférer", "inviter",
            "appeler", "soumettre",
        ),
        Commit.POST: ("publier", "publiez", "reposter", "commenter", "tweeter", "mettre en ligne"),
    },
    "pt": {
        Commit.PURCHASE: (
            "comprar", "compre", "comprar agora", "finalizar compra", "fazer pedido", "pagar", "pague",
            "assinar", "assine", "alugar", "teste grátis", "avaliação gratuita", "resgatar", "doar",
            "transferir", "enviar dinheiro",
        ),
        Commit.DELETE: (
            "excluir", "exclua", "apagar", "apague", "remover", "remova", "descartar", "redefinir", "desativar",
            "encerrar conta", "cancelar inscrição", "desinstalar", "limpar cache", "limpar armazenamento",
            "limpar dados", "mover para a lixeira", "esvaziar lixeira",
        ),
        Commit.SEND: (
            "enviar", "envie", "reenviar", "responder", "responder a todos", "compartilhar", "encaminhar",
            "convidar",
        ),
        Commit.POST: ("publicar", "publique", "postar", "comentar", "fazer upload"),
    },
    "it": {
        Commit.PURCHASE: (
            "acquista", "acquistare", "acquista ora", "compra ora", "paga", "pagare", "paga ora", "abbonati",
            "noleggia", "prova gratuita", "prova gratis", "riscatta", "dona", "effettua ordine", "bonifico",
            "invia denaro",
        ),
        Commit.DELETE: (
            "elimina", "eliminare", "cancella", "rimuovi", "rimuovere", "scarta", "reimposta",
            "chiudi account", "annulla iscrizione", "disinstalla", "svuota cache", "cancella dati",
            "sposta nel cestino", "svuota cestino",
        ),
        Commit.SEND: ("invia", "inviare", "rispondi", "rispondi a tutti", "condividi", "inoltra", "invita", "chiama"),
        Commit.POST: ("pubblica", "pubblicare", "commenta", "ripubblica"),
    },
    "nl": {
        Commit.PURCHASE: (
            "kopen", "koop", "nu kopen", "betalen", "betaal", "afrekenen", "bestelling plaatsen", "abonneren",
            "abonnement", "huren", "gratis proberen", "inwisselen", "doneren", "overmaken", "geld sturen",
        ),
        Commit.DELETE: (
            "verwijderen", "verwijder", "wis", "alles wissen", "cache wissen", "opslag wissen", "gegevens wissen",
            "leegmaken", "prullenbak legen", "naar prullenbak", "resetten", "deactiveren", "account sluiten",
            "uitschrijven",
        ),
        Commit.SEND: (
            "verzenden", "verzend", "versturen", "verstuur", "beantwoorden", "allen beantwoorden", "delen",
            "doorsturen", "uitnodigen", "bellen", "indienen",
        ),
        Commit.POST: ("plaatsen", "publiceren", "reageren", "uploaden"),
    },
    "pl": {
        Commit.PURCHASE: (
            "kup", "kupić", "kup teraz", "zamów", "złóż zamówienie", "zapłać", "płatność", "subskrybuj",
            "wykup subskrypcję", "wypożycz", "wypróbuj za darmo", "zrealizuj kod", "przekaż darowiznę",
            "przelew",
        ),
        Commit.DELETE: (
            "usuń", "usunąć", "wymaż", "odrzuć", "resetuj", "dezaktywuj", "zamknij konto", "anuluj subskrypcję",
            "odinstaluj", "wyczyść pamięć", "wyczyść dane", "przenieś do kosza", "opróżnij kosz",
        ),
        Commit.SEND: (
            "wyślij", "wysłać", "odpowiedz", "odpowiedz wszystkim", "udostępnij", "przekaż", "zaproś", "zadzwoń",
        ),
        Commit.POST: ("opublikuj", "publikuj", "skomentuj", "prześlij"),
    },
    "tr": {
        Commit.PURCHASE: (
            "satın al", "satın alın", "şimdi satın al", "öde", "ödeme yap", "sipariş ver", "abone ol",  # noqa: RUF001 - Turkish dotless i
            "kirala", "ücretsiz dene", "bağış yap", "para gönder", "havale",  # noqa: RUF001 - Turkish dotless i
        ),
        Commit.DELETE: (
            "sil", "silin", "kaldır", "yüklemeyi kaldır", "önbelleği temizle", "depolama alanını temizle",  # noqa: RUF001 - Turkish dotless i
            "verileri temizle", "çöp kutusuna taşı", "çöp kutusunu boşalt", "sıfırla", "hesabı kapat",  # noqa: RUF001 - Turkish dotless i
            "aboneliği iptal et",
        ),
        Commit.SEND: ("gönder", "yanıtla", "tümünü yanıtla", "paylaş", "ilet", "davet et"),  # noqa: RUF001 - Turkish dotless i
        Commit.POST: ("yayınla", "yorum yap", "gönderi paylaş"),  # noqa: RUF001 - Turkish dotless i
    },
    "ru": {
        Commit.PURCHASE: (
            "купить", "купи", "оплатить", "оплата", "заказать", "оформить заказ", "подписаться", "подписка",
            "арендовать", "попробовать бесплатно", "пополнить", "пожертвовать", "перевести деньги",
        ),
        Commit.DELETE: (
            "удалить", "удали", "стереть", "очистить кеш", "очистить кэш", "очистить хранилище",
            "очистить данные", "очистить корзину", "переместить в корзину", "сбросить",
            "деактивировать", "закрыть счёт", "отписаться",
        ),
        Commit.SEND: (
            "отправить", "отправь", "ответить", "ответить всем", "поделиться", "переслать", "пригласить",
            "позвонить",
        ),
        Commit.POST: ("опубликовать", "комментировать", "выложить"),
    },
    "ko": {
        Commit.PURCHASE: ("구매", "구입", "결제", "주문", "구독", "대여", "무료 체험", "송금", "후원", "기부"),
        Commit.DELETE: ("삭제", "제거", "지우기", "비우기", "초기화", "휴지통으로 이동", "탈퇴"),
        Commit.SEND: ("보내기", "전송", "답장", "전달", "공유", "초대", "전화 걸기", "제출"),
        Commit.POST: ("게시", "업로드", "댓글"),
    },
    "id": {
        Commit.PURCHASE: (
            "beli", "beli sekarang", "bayar", "bayar sekarang", "berlangganan", "buat pesanan", "sewa",
            "coba gratis", "tukarkan", "donasi", "kirim uang",
        ),
        Commit.DELETE: (
            "hapus", "buang", "uninstal", "copot", "hapus cache", "hapus penyimpanan", "hapus data",
            "pindahkan ke sampah", "kosongkan sampah", "setel ulang", "tutup akun",
        ),
        Commit.SEND: ("kirim", "kirim ulang", "balas", "balas semua", "bagikan", "undang", "ajukan"),
        Commit.POST: ("unggah", "publikasikan", "terbitkan", "komentari"),
    },
    "ar": {
        Commit.PURCHASE: (
            "شراء", "اشتر", "اشتري", "اشتر الآن", "ادفع", "دفع", "اشترك", "اشتراك", "استئجار", "تجربة مجانية",
            "تبرع", "تحويل الأموال",
        ),
        Commit.DELETE: (
            "حذف", "احذف", "إزالة", "محو", "إلغاء التثبيت", "نقل إلى المهملات", "إفراغ المهملات",
            "إعادة الضبط", "إعادة التعيين", "إلغاء الاشتراك", "إغلاق الحساب",
        ),
        Commit.SEND: ("إرسال", "أرسل", "رد", "الرد على الكل", "مشاركة", "إعادة توجيه", "دعوة"),
        Commit.POST: ("نشر", "انشر", "تعليق"),
    },
}  # fmt: skip

#: Rule 4's table with the languages merged, by commit, in Rule 7's order of precedence.
COMMIT_WORDS: Mapping[Commit, tuple[str, ...]] = {
    commit: tuple(word for table in COMMIT_WORDS_BY_LANGUAGE.values() for word in table.get(commit, ()))
    for commit in (Commit.PURCHASE, Commit.DELETE, Commit.SEND, Commit.POST)
}

#: Rule 5's table: label parts that hold a commit word but, as a whole, only show or manage
#: something. Each entry must hold a commit word (a test says so); compared after ``fold``.
HARMLESS_PHRASES: frozenset[str] = frozenset(
    {
        # English: Settings, the App Store, Messages, Wallet, paywalls, shops
        "Purchase History", "View Purchase History", "Restore Purchase", "Subscription Details",
        "Subscription Settings", "Subscription Status", "Subscription Info", "Subscription Information",
        "Manage Subscription", "Your Subscription", "My Subscription", "Payment Methods", "Payment Method",
        "Payment & Shipping", "Payment Details", "Payment History", "Payment Settings", "Order History",
        "Order Status", "Order Details", "Order Summary", "Track Order", "Delete Key Settings",
        "Send & Receive", "Undo Send", "Transfer or Reset iPhone", "Redeem Gift Card or Code", "Trial Details",
        # Spanish
        "Historial de compra", "Restaurar compra", "Gestionar suscripción", "Administrar suscripción",
        "Detalles de la suscripción", "Mi suscripción", "Métodos de pago", "Método de pago", "Pago y envío",
        "Estado del pedido", "Detalles del pedido", "Transferir o restablecer el iPhone",
        "Enviar y recibir",
        # German
        "Käufe wiederherstellen", "Abo verwalten", "Abonnement verwalten", "Abo-Details",
        "iPhone übertragen/zurücksetzen", "Senden & Empfangen",
        # Simplified Chinese
        "购买记录", "恢复购买", "管理订阅", "订阅详情", "支付方式", "付款方式", "付款与配送", "最近删除",
        "传输或还原iPhone", "发送与接收",
        # Japanese
        "購入履歴", "購入を復元", "購入の復元", "お支払い方法", "支払い方法", "お支払いと配送先", "注文履歴",
        "最近削除した項目", "転送またはiPhoneをリセット",
        # Korean (matched inside the text, as Chinese is): Play and shops' history and settings rows
        "구매 내역", "구매 복원", "구독 관리", "구독 정보", "결제 수단", "결제 내역", "주문 내역", "최근 삭제된 항목",
    }
)  # fmt: skip

#: Rule 2: the roles a person reads, types into or scrolls: they commit nothing.
READ_ONLY_ROLES = frozenset(
    {
        "StaticText", "TextField", "SecureTextField", "SearchField", "TextView", "NavigationBar", "TabBar",
        "Toolbar", "StatusBar", "Window", "Application", "Group", "ScrollView", "ScrollBar", "Table",
        "CollectionView", "Alert", "Sheet", "Dialog", "Popover", "Keyboard", "ProgressIndicator",
        "ActivityIndicator", "PageIndicator", "ValueIndicator", "LevelIndicator", "RatingIndicator",
        "RelevanceIndicator", "Slider", "Picker", "PickerWheel", "DatePicker", "Map", "Timeline", "HelpTag",
        "Ruler", "RulerMarker", "Grid", "LayoutArea", "Matte", "Splitter", "SplitGroup", "TableColumn",
        "Outline", "Browser", "RadioGroup", "TabGroup", "MenuBar", "TouchBar",
    }
)  # fmt: skip

#: Rule 8: what each kind of device refuses.
REFUSED: dict[DeviceKind, frozenset[Commit]] = {
    DeviceKind.SIMULATOR: frozenset({Commit.PURCHASE}),
    DeviceKind.IPHONE: frozenset({Commit.SEND, Commit.POST, Commit.DELETE, Commit.PURCHASE}),
    DeviceKind.EMULATOR: frozenset({Commit.PURCHASE}),
    DeviceKind.DEVICE: frozenset({Commit.SEND, Commit.POST, Commit.DELETE, Commit.PURCHASE}),
}

#: Rule 6: currency symbols as prices show them (after ``fold``: lower case), longest first when matched.
CURRENCY_SYMBOLS: tuple[str, ...] = (
    "$", "us$", "ca$", "c$", "a$", "au$", "nz$", "hk$", "nt$", "mx$", "r$", "s$", "col$", "mop$",
    "€", "£", "¥", "₩", "₹", "₽", "₺", "₪", "₫", "₱", "₦", "₴", "₸", "₼", "₾", "₡", "₲", "₵", "₭", "₮",
    "₨", "₿", "฿", "៛", "₥", "৳", "؋", "﷼", "元", "円", "руб", "грн", "лв", "ден", "дин",  # noqa: RUF001 - Cyrillic on purpose
    "zł", "zl", "kr", "kč", "kc", "ft", "lei", "rp", "rm", "s/", "fr", "chf", "r", "kn", "din", "ls",
    "dh", "dhs", "sar", "aed", "qar", "egp", "e£", "l.e.", "tl", "ksh", "tsh", "ush", "zk",
)  # fmt: skip
#: Rule 6: ISO 4217's codes in circulation (not the few that are English words a button may be labelled
#: with: ALL, BOB, COP, CUP, GEL, MAD, MOP, PEN, SOS, TOP).
CURRENCY_CODES: frozenset[str] = frozenset(
    (  # noqa: SIM905 - a table reads better as words than as 150 quoted items
        "aed afn amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd brl bsd btn bwp byn bzd cad "
        "cdf chf clp cny crc cuc cve czk djf dkk dop dzd egp ern etb eur fjd fkp gbp ghs gip gmd gnf gtq "
        "gyd hkd hnl htg huf idr ils inr iqd irr isk jmd jod jpy kes kgs khr kmf kpw krw kwd kyd kzt lak lbp lkr lrd "
        "lsl lyd mdl mga mkd mmk mnt mru mur mvr mwk mxn myr mzn nad ngn nio nok npr nzd omr pab pgk php "
        "pkr pln pyg qar ron rsd rub rwf sar sbd scr sdg sek sgd shp sle sll srd ssp stn svc syp szl thb tjs tmt "
        "tnd try ttd twd tzs uah ugx usd uyu uzs ves vnd vuv wst xaf xcd xof xpf yer zar zmw zwl rmb ntd"
    ).split()
)
#: Rule 6: the periods a subscription's price is shown with, after a slash or a preposition.
PERIOD_WORDS: tuple[str, ...] = (
    "month", "months", "mo", "mth", "year", "years", "yr", "week", "weeks", "wk", "day", "days",
    "monthly", "yearly", "annually", "weekly", "monat", "jahr", "woche", "mes", "ano", "año", "semana", "mois",
    "an", "annee", "année", "mese", "anno", "maand", "jaar", "miesiac", "miesiąc", "rok", "mesic", "měsíc",
    "ay", "yil", "yıl", "месяц", "мес", "год", "月", "年", "周", "週", "개월", "월", "년",  # noqa: RUF001 - on purpose
)  # fmt: skip
