"""Mecanismul comun al verificărilor: apelează codul cursantului cu o limită de timp, fără să-l
lase să arunce un traceback, și traduce fiecare greșeală într-o explicație scurtă, în română.

O verificare întoarce un `Rezultat`: adevărat dacă răspunsul e corect, fals altfel, cu
mesajul afișat frumos în notebook. Soluțiile îl folosesc cu `assert`, ca testele să cadă
dacă o soluție nu mai e corectă.

Reguli pe care le respectă fiecare verificare a cursului:

- codul cursantului se apelează numai prin `apeleaza`, care are o limită de timp (și una
  pe care un `except:` gol nu o poate înghiți) și transformă orice excepție într-un mesaj cu
  tipul ei și cu linia din codul cursantului unde a apărut;
- `verificare` pune o limită și pe toată verificarea, iar o eroare neprevăzută a verificării
  devine tot un mesaj, nu un traceback;
- tensorii se compară cu `compara_tensori`: întâi tipul, forma, `dtype` și dispozitivul, abia
  apoi valorile.
"""

from __future__ import annotations

import contextlib
import ctypes
import linecache
import math
import numbers
import os
import random
import re
import signal
import sys
import sysconfig
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from ..cifre import format_numar, format_timp

__all__ = [
    "Rezultat",
    "GresealaCursant",
    "TimpDepasit",
    "apeleaza",
    "compara_tensori",
    "cere_numar",
    "explica_exceptie",
    "linia_cursantului",
    "generator_aleator",
    "limita_timp",
    "numar_precis",
    "verificare",
    "fara_jurnale_torch",
    "goleste_dynamo",
    "NESCRIS",
    "LIMITA_APEL_S",
    "LIMITA_VERIFICARE_S",
]

@contextlib.contextmanager
def fara_jurnale_torch(tampon=None):
    """Ascunde ce scrie PyTorch pe stderr cât compilează codul cursantului (avertismente, jurnale cu
    traceback-uri interne): verificarea spune ea, în română, ce s-a întâmplat. Textul ajunge în
    `tampon` (un `io.StringIO`), dacă e dat, ca verificarea să-l poată citi."""
    import io
    import warnings

    from ..inspectie import _stderr_torch_catre

    with warnings.catch_warnings(), _stderr_torch_catre(tampon if tampon is not None else io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def goleste_dynamo() -> None:
    """Dynamo de la zero: compilările uitate, contoarele (`torch._dynamo.utils.counters`) și lista
    gărzilor căzute golite, ca o verificare să nu depindă de ce a rulat înainte în notebook."""
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    esecuri = getattr(torch._dynamo.utils, "guard_failures", None)
    if esecuri is not None:
        esecuri.clear()


#: Mesajul pentru o soluție încă nescrisă (funcția ridică NotImplementedError).
NESCRIS = (
    "Încă n-ai scris soluția: funcția ridică NotImplementedError. "
    "Înlocuiește linia `raise NotImplementedError` cu codul tău."
)

#: Cât are voie să dureze, implicit, un apel al codului cursantului.
LIMITA_APEL_S = 60.0
#: Cât are voie să dureze, implicit, o verificare întreagă.
LIMITA_VERIFICARE_S = 180.0


@dataclass
class Rezultat:
    """Rezultatul unei verificări: `corect` și mesajul pentru cursant."""

    exercitiu: str
    corect: bool
    mesaj: str

    def __bool__(self) -> bool:
        return self.corect

    def text(self) -> str:
        if self.corect:
            return f"✅ {self.exercitiu}: corect! {self.mesaj}"
        return f"❌ {self.exercitiu}: {self.mesaj}"

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        import html

        culoare = "#e6f4ea" if self.corect else "#fdecea"
        bordura = "#34a853" if self.corect else "#d93025"
        return (
            f'<div style="background:{culoare};border-left:4px solid {bordura};'
            f'padding:8px 12px;white-space:pre-wrap">{html.escape(self.text())}</div>'
        )


class GresealaCursant(Exception):
    """Ridicată în interiorul unei verificări: mesajul ei (în română) ajunge la cursant."""


# ---------------------------------------------------------------------------------------------
# Ce cod e al cursantului
# ---------------------------------------------------------------------------------------------

_DOSARE_BIBLIOTECI = tuple(
    os.path.realpath(cale) + os.sep
    for cale in {
        *(sysconfig.get_paths().get(cheie) for cheie in ("stdlib", "platstdlib", "purelib", "platlib")),
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # pachetul cursului
        os.path.dirname(os.path.abspath(torch.__file__)),
        os.path.dirname(os.path.abspath(os.__file__)),
    }
    if cale
)
_e_al_cursantului_cache: dict[str, bool] = {}


def _e_cod_al_cursantului(nume_fisier: str) -> bool:
    """Adevărat pentru codul scris de cursant (celulele notebook-ului, fișierele lui), fals pentru
    biblioteca standard, pachetele instalate și pachetul cursului."""
    rezultat = _e_al_cursantului_cache.get(nume_fisier)
    if rezultat is None:
        if nume_fisier.startswith("<") and not nume_fisier.startswith(("<ipython-input", "<string>")):
            rezultat = False  # <frozen ...>, cod generat de biblioteci
        else:
            cale = os.path.realpath(nume_fisier) if not nume_fisier.startswith("<") else nume_fisier
            rezultat = (
                not cale.startswith(_DOSARE_BIBLIOTECI)
                and "site-packages" not in cale
                and "dist-packages" not in cale  # Debian, Ubuntu, Colab
            )
        _e_al_cursantului_cache[nume_fisier] = rezultat
    return rezultat


# ---------------------------------------------------------------------------------------------
# Limita de timp
# ---------------------------------------------------------------------------------------------


class TimpDepasit(BaseException):
    """Ridicată în codul cursantului când o limită de timp a expirat. E o BaseException, ca un
    `except Exception` să n-o înghită; pe cele înghițite de un `except:` gol le oprește
    `limita_timp` altfel (vezi mai jos)."""

    def __init__(self, termen: "_Termen | None" = None):
        super().__init__("limita de timp a expirat")
        self.termen = termen


@dataclass(eq=False)
class _Termen:
    secunde: float
    final: float
    ce: str
    cadru: Any = None  # cadrul care a deschis limita: doar codul de sub el e întrerupt
    declansari: int = 0
    cadre_urmarite: list = field(default_factory=list)


_termene: list[_Termen] = []
_stare = {"handler_vechi": None, "urmarire_veche": None, "mod": None, "urmarire_activa": False,
          "paznic": None, "oprire_paznic": None}
#: Cât așteaptă între două întreruperi, dacă prima a fost înghițită.
_INTERVAL_REPETARE_S = 0.05


def _poate_semnal() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and os.environ.get("CURS_LIMITA_FARA_SEMNAL") != "1"
    )


def _sub_cadru(cadru, sus) -> bool:
    """Adevărat dacă `cadru` e apelat (direct sau nu) din `sus`."""
    cadru = cadru.f_back if cadru is not None else None
    while cadru is not None:
        if cadru is sus:
            return True
        cadru = cadru.f_back
    return False


def _termen_expirat() -> _Termen | None:
    """Cel mai din afară termen expirat (la el trebuie să se întoarcă execuția)."""
    acum = time.perf_counter()
    return next((t for t in _termene if acum >= t.final), None)


def _urmarire_locala(cadru, eveniment, argument):
    """Urmărirea liniilor din codul cursantului, pornită după ce o întrerupere a fost înghițită:
    prima linie executată sub limită (de obicei cea din blocul `except` care a prins-o) ridică
    din nou `TimpDepasit`. CPython oprește urmărirea după o excepție ridicată aici; semnalul
    următor o repornește."""
    if eveniment == "line":
        termen = _termen_expirat()
        if termen is not None and (termen.cadru is None or _sub_cadru(cadru, termen.cadru)):
            termen.declansari += 1
            raise TimpDepasit(termen)
    return _urmarire_locala


def _urmarire_globala(cadru, eveniment, argument):
    if eveniment == "call" and _e_cod_al_cursantului(cadru.f_code.co_filename):
        return _urmarire_locala
    return None


def _porneste_urmarirea(cadru_curent=None) -> None:
    """Pornește urmărirea liniilor din codul cursantului, și în cadrele care rulează deja."""
    if not _stare["urmarire_activa"]:
        _stare["urmarire_veche"] = sys.gettrace()
        _stare["urmarire_activa"] = True
    sys.settrace(_urmarire_globala)
    cadru = cadru_curent
    while cadru is not None:
        if _e_cod_al_cursantului(cadru.f_code.co_filename) and cadru.f_trace is not _urmarire_locala:
            cadru.f_trace = _urmarire_locala
            if _termene:
                _termene[-1].cadre_urmarite.append(cadru)
        cadru = cadru.f_back


def _opreste_urmarirea() -> None:
    if _stare["urmarire_activa"]:
        if _stare["mod"] == "urmarire" and hasattr(sys, "_settraceallthreads"):
            sys._settraceallthreads(None)
        sys.settrace(_stare["urmarire_veche"])
        _stare["urmarire_activa"] = False
        _stare["urmarire_veche"] = None


def _intrerupere_in_fir(id_fir: int) -> None:
    """Programează `TimpDepasit` în firul `id_fir`: se ridică la următorul salt sau apel din el."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(id_fir), ctypes.py_object(TimpDepasit))


def _goleste_intreruperile() -> None:
    """Ridică aici (și prinde) o întrerupere programată de paznic și rămasă neridicată. (Anularea
    cu NULL ar lăsa interpretorul, pe Python 3.11, să verifice la nesfârșit o întrerupere care
    nu mai există.)"""
    for _ in range(3):
        try:
            for _ in range(2):
                pass
        except TimpDepasit:
            pass


def _paznic(id_fir: int, oprire: threading.Event) -> None:
    """Firul de pază, unde nu există semnale (Windows) sau limita e pusă în alt fir decât cel
    principal: după expirare, întrerupe firul urmărit la fiecare 0,05 s și, pe Python ≥ 3.12,
    repornește urmărirea liniilor lui (oprită după fiecare excepție ridicată de ea)."""
    while not oprire.wait(_INTERVAL_REPETARE_S):
        termen = _termen_expirat()
        if termen is None:
            continue
        termen.declansari += 1
        if hasattr(sys, "_settraceallthreads"):
            sys._settraceallthreads(_urmarire_globala)
            cadru = sys._current_frames().get(id_fir)
            while cadru is not None:
                if _e_cod_al_cursantului(cadru.f_code.co_filename):
                    cadru.f_trace = _urmarire_locala
                cadru = cadru.f_back
        _intrerupere_in_fir(id_fir)


def _la_alarma(semnal, cadru):
    termen = _termen_expirat()
    if termen is None:
        _armeaza()
        return
    termen.declansari += 1
    if termen.declansari >= 2:
        # Prima întrerupere a fost înghițită (un `except:` gol): de acum, fiecare linie din codul
        # cursantului de sub limită o ridică din nou.
        _porneste_urmarirea(cadru)
    raise TimpDepasit(termen)


def _armeaza() -> None:
    """Pornește ceasul pentru cel mai apropiat termen (sau îl oprește, dacă nu mai e niciunul)."""
    if _stare["mod"] != "semnal":
        return
    if not _termene:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    acum = time.perf_counter()
    # Un termen care a întrerupt deja codul revine abia după intervalul de repetare (altfel semnalul
    # ar cădea chiar în blocul care tratează întreruperea).
    ramas = min(max(t.final - acum, _INTERVAL_REPETARE_S if t.declansari else 1e-4) for t in _termene)
    signal.setitimer(signal.ITIMER_REAL, ramas, _INTERVAL_REPETARE_S)


def _mesaj_timp(termen: _Termen) -> str:
    return (
        f"{termen.ce[0].upper()}{termen.ce[1:]} n-a terminat în {format_timp(termen.secunde)}, cât "
        "are voie. Caută o buclă care nu se oprește sau o variantă mult prea lentă (de exemplu, o "
        "buclă Python peste elementele unui tensor, în loc de operații pe tot tensorul)."
    )


def _restaureaza_configuratia(copie: dict) -> None:
    """Pune la loc opțiunile lui Dynamo schimbate temporar (de `dynamic=True`, de `config.patch`)
    a căror restaurare a sărit-o întreruperea, căzută chiar în codul bibliotecii."""
    import warnings

    configuratie = torch._dynamo.config
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cheie, valoare in copie.items():
            if getattr(configuratie, cheie, valoare) != valoare:
                setattr(configuratie, cheie, valoare)


@contextlib.contextmanager
def limita_timp(secunde: float | None, ce: str = "codul tău", mesaj: str | None = None):
    """Oprește blocul `with` după `secunde` și ridică `GresealaCursant` cu un mesaj în română
    (`mesaj`, dacă e dat). Limitele se pot imbrica: contează cea care expiră prima.

    Pe Linux și macOS, în firul principal (cum rulează Jupyter), un semnal întrerupe codul; dacă
    cursantul înghite întreruperea cu un `except:` gol, semnalul revine la fiecare 0,05 s și, de
    la al doilea, și prima linie executată după el în codul cursantului (cea din `except`) o
    ridică din nou, așa că iese și din bucla `while True: try: … except: pass`.
    Altundeva (Windows, alt fir decât cel principal), ceasul se verifică la fiecare linie a
    codului cursantului, iar un fir de pază întrerupe codul la fiecare 0,05 s după expirare.
    Un singur apel lung din interiorul unei biblioteci (un produs de matrice uriaș) nu poate fi
    întrerupt la mijloc: se oprește imediat după."""
    if secunde is None:
        yield
        return
    termen = _Termen(float(secunde), time.perf_counter() + float(secunde), ce, sys._getframe(2))
    primul = not _termene
    if primul:
        _stare["mod"] = "semnal" if _poate_semnal() else "urmarire"
        if _stare["mod"] == "semnal":
            _stare["handler_vechi"] = signal.signal(signal.SIGALRM, _la_alarma)
        else:
            _stare["oprire_paznic"] = threading.Event()
            _stare["paznic"] = threading.Thread(
                target=_paznic, args=(threading.get_ident(), _stare["oprire_paznic"]), daemon=True
            )
            _stare["paznic"].start()
    _termene.append(termen)
    if _stare["mod"] == "urmarire":
        _porneste_urmarirea()
    gradient = torch.is_grad_enabled()
    configuratie = torch._dynamo.config.get_config_copy()
    try:
        _armeaza()
        yield
    except TimpDepasit as exceptie:
        al_cui = exceptie.termen or _termen_expirat()
        if al_cui is not None and al_cui is not termen and al_cui in _termene:
            raise
        torch.set_grad_enabled(gradient)
        _restaureaza_configuratia(configuratie)
        raise GresealaCursant(mesaj or _mesaj_timp(termen)) from None
    finally:
        _termene.remove(termen)
        for cadru in termen.cadre_urmarite:
            with contextlib.suppress(Exception):
                cadru.f_trace = None
        if not _termene:
            _opreste_urmarirea()
            if _stare["mod"] == "semnal":
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, _stare["handler_vechi"] or signal.SIG_DFL)
            else:
                _stare["oprire_paznic"].set()
                _stare["paznic"].join()
                _goleste_intreruperile()
            _stare["mod"] = None
        else:
            if not any(t.declansari >= 2 for t in _termene) and _stare["mod"] == "semnal":
                _opreste_urmarirea()
            _armeaza()


# ---------------------------------------------------------------------------------------------
# Excepțiile codului cursantului, explicate
# ---------------------------------------------------------------------------------------------

_SFATURI = {
    NotImplementedError: "O parte din cod încă ridică NotImplementedError: termin-o.",
    TypeError: "Verifică tipurile și numărul argumentelor.",
    ValueError: "O valoare nu are forma sau domeniul așteptat.",
    RuntimeError: "PyTorch a refuzat o operație: verifică formele, tipurile și dispozitivele tensorilor.",
    NameError: "Folosești un nume care nu e definit: ai rulat celulele de mai sus?",
    AttributeError: "Ai cerut un atribut care nu există pe acel obiect.",
    ZeroDivisionError: "Ai împărțit la zero.",
    IndexError: "Un indice iese din limite.",
    KeyError: "Ai cerut o cheie care nu există în dicționar.",
    AssertionError: "Un `assert` din codul tău n-a trecut.",
    RecursionError: "Funcția se apelează pe ea însăși fără oprire.",
    MemoryError: "Ai cerut mai multă memorie decât există.",
}

#: Cât din mesajul unei excepții se păstrează (erorile lui Dynamo au zeci de rânduri).
_LUNGIME_MESAJ = 400


def _linia_din_exceptie(eroare: BaseException) -> tuple[int, str] | None:
    """Ultima linie din codul cursantului pomenită de o singură excepție: în traceback-ul ei, în
    stiva urmărită de Dynamo (`real_stack`) sau în mesaj („from user code: File "...", line 3"):
    Dynamo nu execută codul cursantului, îl urmărește."""
    gasit = None
    tb = eroare.__traceback__
    while tb is not None:
        cod = tb.tb_frame.f_code
        if _e_cod_al_cursantului(cod.co_filename):
            text = linecache.getline(cod.co_filename, tb.tb_lineno, tb.tb_frame.f_globals).strip()
            gasit = (tb.tb_lineno, text)
        tb = tb.tb_next
    if gasit is None:
        for cadru in getattr(eroare, "real_stack", None) or ():
            if _e_cod_al_cursantului(cadru.filename):
                gasit = (cadru.lineno, (cadru.line or "").strip())
    if gasit is None:
        for fisier, numar in _LINIE_IN_MESAJ.findall(str(eroare)):
            if _e_cod_al_cursantului(fisier):
                gasit = (int(numar), linecache.getline(fisier, int(numar)).strip())
    return gasit


def linia_cursantului(eroare: BaseException) -> tuple[int, str] | None:
    """Linia din codul cursantului cea mai apropiată de cauza excepției: (numărul, textul) sau
    None. Caută și în excepțiile din care provine (`raise … from`, sau cea tratată când a apărut,
    ca în Python), fiindcă bibliotecile (Dynamo, interpretorul Triton) le învelesc."""
    gasit, vazute = None, set()
    while eroare is not None and id(eroare) not in vazute:
        vazute.add(id(eroare))
        gasit = _linia_din_exceptie(eroare) or gasit
        eroare = eroare.__cause__ or (None if eroare.__suppress_context__ else eroare.__context__)
    return gasit


_LINIE_IN_MESAJ = re.compile(r'File "([^"]+)", line (\d+)')


def _e_stub(eroare: BaseException) -> bool:
    """Un `raise NotImplementedError` scris de cursant (fără mesaj, chiar în codul lui), nu un
    NotImplementedError venit din PyTorch („operația nu există pentru dispozitivul meta”)."""
    if not isinstance(eroare, NotImplementedError) or str(eroare):
        return False
    tb = eroare.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is None or _e_cod_al_cursantului(tb.tb_frame.f_code.co_filename)


def explica_exceptie(eroare: BaseException, cine: str = "Codul tău", linie: tuple[int, str] | None = None) -> str:
    """O excepție ca text pentru cursant: tipul ei, mesajul ei (scurtat), linia din codul
    cursantului unde a apărut și un sfat. Pentru `raise NotImplementedError`, `NESCRIS`."""
    if _e_stub(eroare):
        return NESCRIS
    text = " ".join(str(eroare).split())
    if len(text) > _LUNGIME_MESAJ:
        text = text[:_LUNGIME_MESAJ].rstrip() + " …"
    tip = type(eroare).__name__
    linie = linie or linia_cursantului(eroare)
    unde = f" la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else (f" la linia {linie[0]}" if linie else "")
    sfat = next((s for t, s in _SFATURI.items() if isinstance(eroare, t)), "")
    return " ".join(parte for parte in (f"{cine} a ridicat {tip}{unde}: {text or '(fără mesaj)'}.", sfat) if parte)


def _mesaj_interzis(nume: str) -> str:
    return (
        f"Funcția ta cheamă `{nume}`, funcția cursului care dă chiar răspunsul (calculul gata făcut). "
        "Exercițiul îți cere să-l scrii tu."
    )


def apeleaza(functie: Callable, *argumente, limita_s: float | None = LIMITA_APEL_S, ce: str | None = None,
             interzise: dict[Callable, str] | None = None, **argumente_numite) -> Any:
    """Apelează codul cursantului, cu o limită de timp (`limita_s` secunde; None = fără limită).

    Orice excepție devine o `GresealaCursant` cu explicație (`explica_exceptie`); depășirea
    limitei, la fel. `ce` descrie apelul în mesajul despre timp („funcția ta pentru lotul 8”).
    `interzise` ({funcție: nume}) sunt funcțiile cursului care dau chiar răspunsul cerut: dacă
    codul cursantului cheamă vreuna (direct sau printr-un alt nume), răspunsul e respins."""
    if not callable(functie):
        raise GresealaCursant(
            f"Trebuia o funcție, dar am primit {type(functie).__name__}. Dă numele funcției, fără paranteze."
        )
    nume = getattr(functie, "__name__", None)
    descriere = ce or (f"funcția ta `{nume}`" if nume and nume != "<lambda>" else "codul tău")
    coduri = {f.__code__: n for f, n in (interzise or {}).items() if hasattr(f, "__code__")}
    if functie in (interzise or {}):
        raise GresealaCursant(_mesaj_interzis(interzise[functie]))
    folosite: list[str] = []
    profil_vechi = sys.getprofile()
    if coduri:
        def profil(cadru, eveniment, argument):
            if eveniment == "call" and cadru.f_code in coduri:
                folosite.append(coduri[cadru.f_code])

        sys.setprofile(profil)
    gradient = torch.is_grad_enabled()
    try:
        with limita_timp(limita_s, descriere):
            rezultat = functie(*argumente, **argumente_numite)
    except GresealaCursant:
        raise
    except Exception as eroare:  # orice altă eroare a codului cursantului
        raise GresealaCursant(explica_exceptie(eroare)) from None
    finally:
        if coduri:
            sys.setprofile(profil_vechi)
        torch.set_grad_enabled(gradient)
    if folosite:
        raise GresealaCursant(_mesaj_interzis(folosite[0]))
    return rezultat


# ---------------------------------------------------------------------------------------------
# Comparații
# ---------------------------------------------------------------------------------------------


def numar_precis(valoare: float, unitate: str = "") -> str:
    """Un număr cu șase cifre semnificative, scris ca în curs („12,3457 s”): pentru mesajele în
    care două valori apropiate trebuie să se vadă diferite."""
    valoare = float(valoare)
    if math.isnan(valoare) or math.isinf(valoare):
        text = str(valoare)
    else:
        zecimale = 0 if valoare == 0 else max(0, 5 - math.floor(math.log10(abs(valoare))))
        text = format_numar(valoare, zecimale)
        if "," in text:
            text = text.rstrip("0").rstrip(",")
    return f"{text} {unitate}" if unitate else text


def _acelasi_dispozitiv(a: torch.device, b: torch.device) -> bool:
    if a.type != b.type:
        return False
    return a.index is None or b.index is None or a.index == b.index


_TOLERANTE_IMPLICITE = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
}


def compara_tensori(obtinut: Any, asteptat: torch.Tensor, context: str = "", rtol=None, atol=None) -> None:
    """Ridică `GresealaCursant` cu o explicație dacă `obtinut` diferă de `asteptat`. Ordinea:
    None, alt tip de obiect, altă formă, alt `dtype`, alt dispozitiv (strict, fără conversii),
    abia apoi valorile, cu `torch.testing.assert_close`."""
    unde = f" ({context})" if context else ""
    if obtinut is None:
        raise GresealaCursant(f"Funcția a întors None{unde}: ai uitat `return`?")
    if not isinstance(obtinut, torch.Tensor):
        raise GresealaCursant(f"Trebuia un tensor{unde}, dar am primit {type(obtinut).__name__}.")
    if obtinut.is_meta or obtinut.device.type == "meta":
        raise GresealaCursant(
            f"Rezultatul e pe dispozitivul „meta”{unde}: are formă, dar nu are valori. Trebuia un tensor "
            f"adevărat, pe {asteptat.device}."
        )
    if obtinut.layout != asteptat.layout:
        raise GresealaCursant(f"Rezultatul e un tensor {obtinut.layout}, dar trebuia {asteptat.layout}{unde}.")
    if obtinut.shape != asteptat.shape:
        raise GresealaCursant(
            f"Forma rezultatului e {tuple(obtinut.shape)}, dar trebuia {tuple(asteptat.shape)}{unde}."
        )
    if obtinut.dtype != asteptat.dtype:
        raise GresealaCursant(
            f"Tipul rezultatului e {obtinut.dtype}, dar trebuia {asteptat.dtype}{unde}: nu schimba tipul "
            "datelor (o conversie costă și timp, și memorie)."
        )
    if not _acelasi_dispozitiv(obtinut.device, asteptat.device):
        raise GresealaCursant(
            f"Rezultatul e pe {obtinut.device}, dar trebuia pe {asteptat.device}{unde}: lasă datele pe "
            "dispozitivul lor."
        )
    try:
        torch.testing.assert_close(obtinut, asteptat, rtol=rtol, atol=atol, equal_nan=True)
        return
    except AssertionError:
        pass
    except Exception as eroare:
        raise GresealaCursant(
            f"Nu am putut compara rezultatul tău cu cel așteptat{unde}: {type(eroare).__name__}: "
            f"{' '.join(str(eroare).split())[:_LUNGIME_MESAJ]}"
        ) from None
    try:
        o, a = obtinut.detach().double().cpu(), asteptat.detach().double().cpu()
        diferenta = torch.nan_to_num((o - a).abs(), nan=float("inf"))
        pozitie = tuple(int(i) for i in torch.unravel_index(diferenta.argmax(), diferenta.shape))
        if rtol is None or atol is None:  # toleranțele implicite ale lui assert_close, după tip
            rtol, atol = _TOLERANTE_IMPLICITE.get(asteptat.dtype, (0.0, 0.0))
        gresite = int((~torch.isclose(o, a, rtol=rtol, atol=atol, equal_nan=True)).sum())
        detaliu = (
            f" Elemente greșite: {format_numar(gresite)} din {format_numar(asteptat.numel())}; cea mai mare "
            f"diferență e la poziția {pozitie}: ai {numar_precis(o[pozitie].item())}, trebuia "
            f"{numar_precis(a[pozitie].item())}."
        )
    except Exception:
        detaliu = ""
    raise GresealaCursant(f"Valorile diferă{unde}.{detaliu}") from None


def cere_numar(valoare: Any, ce: str) -> float:
    """Verifică că răspunsul e un număr finit (nu None, nu text, nu NaN) și îl întoarce ca float.
    Primește și numerele NumPy și tensorii cu un singur element."""
    if valoare is None:
        raise GresealaCursant(f"Pentru {ce} ai întors None: ai uitat `return`?")
    if isinstance(valoare, torch.Tensor):
        if valoare.numel() != 1:
            raise GresealaCursant(
                f"Pentru {ce} trebuia un număr, dar ai întors un tensor de forma {tuple(valoare.shape)}."
            )
        if valoare.is_meta:
            raise GresealaCursant(f"Pentru {ce} ai întors un tensor „meta”, fără valoare.")
        valoare = valoare.item()
    if isinstance(valoare, bool) or not isinstance(valoare, numbers.Real):
        raise GresealaCursant(f"Pentru {ce} trebuia un număr, dar am primit {type(valoare).__name__}.")
    valoare = float(valoare)
    if math.isnan(valoare) or math.isinf(valoare):
        raise GresealaCursant(f"Pentru {ce} ai obținut {valoare}: verifică împărțirile.")
    return valoare


def generator_aleator(semanta: int | None = None) -> random.Random:
    """Un generator de numere aleatoare pentru intrările unei verificări: altele la fiecare
    rulare (ca un răspuns scris pe de rost să nu treacă), aceleași dacă dai `semanta` sau
    variabila de mediu `CURS_SEMINTA` (ca o greșeală să poată fi reprodusă)."""
    if semanta is None and os.environ.get("CURS_SEMINTA"):
        semanta = int(os.environ["CURS_SEMINTA"])
    if semanta is None:
        semanta = int.from_bytes(os.urandom(4), "little")
    return random.Random(semanta)


def verificare(exercitiu: str, corp: Callable[[], str], limita_s: float | None = LIMITA_VERIFICARE_S) -> Rezultat:
    """Rulează `corp()`, care fie întoarce mesajul de succes, fie ridică `GresealaCursant`, și
    întoarce un `Rezultat`. Toată verificarea are o limită de timp (`limita_s`), iar o eroare
    neprevăzută devine tot un mesaj, nu un traceback."""
    try:
        with limita_timp(limita_s, "verificarea", mesaj=(
            f"Verificarea a depășit {format_timp(limita_s or 0)}: codul tău e mult prea lent (sau nu se "
            "oprește). Caută o buclă fără sfârșit sau o variantă care repetă inutil munca."
        )):
            mesaj = corp()
        return Rezultat(exercitiu, True, mesaj or "")
    except GresealaCursant as greseala:
        return Rezultat(exercitiu, False, str(greseala))
    except TimpDepasit:  # o întrerupere ajunsă chiar în tratarea alteia
        return Rezultat(exercitiu, False, _mesaj_timp(_Termen(limita_s or 0, 0, "codul tău")))
    except Exception as eroare:
        return Rezultat(
            exercitiu, False,
            "Nu am putut verifica răspunsul tău: verificarea s-a oprit cu o eroare. "
            + explica_exceptie(eroare, cine="Verificarea"),
        )
