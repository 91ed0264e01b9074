"""Source-language detection on a multilingual sample: 27 languages, 62 short sentences and
phrases. `python tests/unit/translation/test_detection.py` prints accuracy and speed."""

from __future__ import annotations

import sys
import time

import pytest

from translate_server.errors import InvalidRequestError
from translate_server.text.detection import LanguageDetection, detectable_languages

SAMPLE = [
    ("en", "The meeting has been moved to Thursday afternoon."),
    ("en", "Please restart the server before you deploy the new version."),
    ("en", "Thank you very much"),
    ("de", "Die Besprechung wurde auf Donnerstagnachmittag verschoben."),
    ("de", "Bitte starten Sie den Server neu, bevor Sie die neue Version installieren."),
    ("de", "Vielen Dank für Ihre Hilfe"),
    ("fr", "La réunion a été déplacée à jeudi après-midi."),
    ("fr", "Veuillez redémarrer le serveur avant de déployer la nouvelle version."),
    ("fr", "Merci beaucoup pour votre aide"),
    ("es", "La reunión se ha trasladado al jueves por la tarde."),
    ("es", "Por favor, reinicie el servidor antes de instalar la nueva versión."),
    ("es", "Muchas gracias por todo"),
    ("it", "La riunione è stata spostata a giovedì pomeriggio."),
    ("it", "Per favore riavvia il server prima di installare la nuova versione."),
    ("it", "Grazie mille per l'aiuto"),
    ("pt", "A reunião foi transferida para quinta-feira à tarde."),
    ("pt", "Por favor, reinicie o servidor antes de instalar a nova versão."),
    ("pt", "Muito obrigado pela ajuda"),
    ("nl", "De vergadering is verplaatst naar donderdagmiddag."),
    ("nl", "Start de server opnieuw op voordat je de nieuwe versie installeert."),
    ("nl", "Hartelijk bedankt voor je hulp"),
    ("pl", "Spotkanie zostało przeniesione na czwartek po południu."),
    ("pl", "Proszę ponownie uruchomić serwer przed instalacją nowej wersji."),
    ("pl", "Dziękuję bardzo za pomoc"),
    ("ru", "Встреча перенесена на вторую половину дня в четверг."),
    ("ru", "Пожалуйста, перезапустите сервер перед установкой новой версии."),
    ("ru", "Большое спасибо за помощь"),
    ("uk", "Зустріч перенесено на четвер після обіду."),
    ("uk", "Будь ласка, перезапустіть сервер перед встановленням нової версії."),
    ("uk", "Щиро дякую за допомогу"),
    ("cs", "Schůzka byla přesunuta na čtvrteční odpoledne."),
    ("cs", "Před instalací nové verze prosím restartujte server."),
    ("sv", "Mötet har flyttats till torsdag eftermiddag."),
    ("sv", "Starta om servern innan du installerar den nya versionen."),
    ("da", "Mødet er blevet flyttet til torsdag eftermiddag."),
    ("da", "Genstart venligst serveren, før du installerer den nye version."),
    ("fi", "Kokous on siirretty torstai-iltapäivään."),
    ("fi", "Käynnistä palvelin uudelleen ennen uuden version asentamista."),
    ("tr", "Toplantı perşembe öğleden sonraya ertelendi."),
    ("tr", "Lütfen yeni sürümü yüklemeden önce sunucuyu yeniden başlatın."),
    ("hu", "A megbeszélést csütörtök délutánra tették át."),
    ("hu", "Kérjük, indítsa újra a szervert az új verzió telepítése előtt."),
    ("ro", "Întâlnirea a fost mutată joi după-amiază."),
    ("ro", "Vă rugăm să reporniți serverul înainte de a instala noua versiune."),
    ("el", "Η συνάντηση μεταφέρθηκε για την Πέμπτη το απόγευμα."),
    ("el", "Παρακαλώ επανεκκινήστε τον διακομιστή πριν εγκαταστήσετε τη νέα έκδοση."),
    ("ja", "会議は木曜日の午後に変更されました。"),
    ("ja", "新しいバージョンをインストールする前にサーバーを再起動してください。"),
    ("zh", "会议已改到星期四下午。"),
    ("zh", "在安装新版本之前，请重新启动服务器。"),
    ("ko", "회의가 목요일 오후로 변경되었습니다."),
    ("ko", "새 버전을 설치하기 전에 서버를 다시 시작하십시오."),
    ("ar", "تم نقل الاجتماع إلى بعد ظهر يوم الخميس."),
    ("ar", "يرجى إعادة تشغيل الخادم قبل تثبيت الإصدار الجديد."),
    ("he", "הפגישה הועברה ליום חמישי אחר הצהריים."),
    ("he", "אנא הפעל מחדש את השרת לפני התקנת הגרסה החדשה."),
    ("hi", "बैठक को गुरुवार दोपहर तक के लिए टाल दिया गया है।"),
    ("hi", "कृपया नया संस्करण स्थापित करने से पहले सर्वर को पुनः आरंभ करें।"),
    ("vi", "Cuộc họp đã được dời sang chiều thứ Năm."),
    ("vi", "Vui lòng khởi động lại máy chủ trước khi cài đặt phiên bản mới."),
    ("id", "Rapat telah dipindahkan ke hari Kamis sore."),
    ("id", "Silakan mulai ulang server sebelum memasang versi baru."),
]


@pytest.fixture(scope="module")
def detection() -> LanguageDetection:
    return LanguageDetection("low")


def test_sample_accuracy(detection: LanguageDetection) -> None:
    wrong = [
        (lang, text, detection.detect(text).language.tag)
        for lang, text in SAMPLE
        if detection.detect(text).language.tag != lang
    ]
    assert len(wrong) <= 1, wrong


def test_confidence_and_candidates(detection: LanguageDetection) -> None:
    found = detection.candidates("Guten Morgen, wie geht es dir? Mir geht es gut.", 3)
    assert found[0].language.tag == "de"
    assert 0.5 < found[0].confidence <= 1.0
    assert all(c.confidence > 0 for c in found)


@pytest.mark.parametrize("text", ["12345", "!!! ???", "😀😀"])
def test_text_without_words_asks_for_the_source_language(
    detection: LanguageDetection, text: str
) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        detection.detect(text, "text[2]")
    assert caught.value.code == "language_not_detected"
    assert caught.value.param == "text[2]"


def test_long_texts_are_sampled(detection: LanguageDetection) -> None:
    text = "Die Besprechung wurde auf Donnerstag verschoben. " * 2000
    started = time.perf_counter()
    assert detection.detect(text).language.tag == "de"
    assert time.perf_counter() - started < 1.0


def test_detectable_languages() -> None:
    tags = [language.tag for language in detectable_languages()]
    assert len(tags) == 75 and tags == sorted(tags)
    assert {"en", "de", "zh", "ja", "uk", "pt"} <= set(tags)


def main(accuracy: str) -> None:
    detection = LanguageDetection(accuracy)
    started = time.perf_counter()
    detection.candidates("warm up")
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        results = [(lang, detection.candidates(text, 1)) for lang, text in SAMPLE]
    per_text = (time.perf_counter() - started) / (rounds * len(SAMPLE))
    right = sum(bool(found) and found[0].language.tag == lang for lang, found in results)
    print(
        f"{accuracy}: {right}/{len(SAMPLE)} correct, load {loaded:.1f} s, "
        f"{per_text * 1000:.2f} ms per text"
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "low")
