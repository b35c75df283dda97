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

import builtins
import contextlib
import ctypes
import inspect
import itertools
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
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from ..cifre import cu_substantiv, format_numar, format_timp
from ..inspectie import goleste_dynamo

__all__ = [
    "Rezultat",
    "GresealaCursant",
    "MasinaNepotrivita",
    "cere_functie",
    "functie_noua",
    "TimpDepasit",
    "apeleaza",
    "compara_tensori",
    "cere_numar",
    "explica_exceptie",
    "traduce_exceptie",
    "traduce_mesaj",
    "descrie_garda",
    "ExceptieTradusa",
    "original_scurt",
    "cu_originalul",
    "LUNGIME_ORIGINAL",
    "linia_cursantului",
    "generator_aleator",
    "limita_timp",
    "repara_limbajul_triton",
    "numar_precis",
    "verificare",
    "fara_jurnale_torch",
    "goleste_dynamo",
    "configuratia_compilatorului",
    "schimbari_configuratie",
    "configuratie_dynamo_implicita",
    "OPTIUNI_DYNAMO_IMPLICITE",
    "NESCRIS",
    "OCOLIRE_URMARIRE",
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


def configuratia_compilatorului() -> dict:
    """Configurația lui Dynamo și a lui Inductor (ca o verificare să vadă dacă ai schimbat-o global)."""
    import torch._inductor.config as config_inductor

    return {
        "torch._dynamo.config": torch._dynamo.config.get_config_copy(),
        "torch._inductor.config": config_inductor.get_config_copy(),
    }


def schimbari_configuratie(inainte: dict) -> list[str]:
    """Opțiunile schimbate față de `inainte` (din `configuratia_compilatorului`), cu numele întreg
    („torch._dynamo.config.specialize_float”)."""
    acum = configuratia_compilatorului()
    schimbate = []
    for modul, valori in inainte.items():
        for cheie, valoare in valori.items():
            try:
                diferita = acum[modul].get(cheie, valoare) != valoare
            except Exception:  # valori care nu se pot compara
                diferita = False
            if diferita:
                schimbate.append(f"{modul}.{cheie}")
    return schimbate


#: Opțiunile lui Dynamo de care depind verificările care numără compilări, cu valorile lor implicite
#: din PyTorch (numele noi; `_nume_optiune` le găsește și pe cele vechi, `cache_size_limit`).
OPTIUNI_DYNAMO_IMPLICITE = {
    "recompile_limit": 8,
    "accumulated_recompile_limit": 256,
    "error_on_recompile": False,
    "fail_on_recompile_limit_hit": False,
}
_NUME_VECHI = {"recompile_limit": "cache_size_limit", "accumulated_recompile_limit": "accumulated_cache_size_limit"}


def _nume_optiune(configuratie, nume: str) -> str | None:
    if hasattr(configuratie, nume):
        return nume
    vechi = _NUME_VECHI.get(nume)
    return vechi if vechi and hasattr(configuratie, vechi) else None


@contextlib.contextmanager
def configuratie_dynamo_implicita(**alte):
    """Cât ține blocul, opțiunile lui Dynamo de care depinde o verificare au valorile implicite din
    PyTorch (`OPTIUNI_DYNAMO_IMPLICITE`: limita de 8 recompilări, fără eroare la recompilare), iar
    atitudinea lui e cea implicită (`torch.compiler.set_stance("default")`), oricum le-ar fi lăsat o
    celulă rulată înainte; la ieșire, și după o excepție, pune la loc valorile dinainte. `alte`: alte
    opțiuni, ca `{"torch._inductor.config.fallback_random": False}` (cu numele modulului) sau
    `recompile_limit=2` (ale lui `torch._dynamo.config`)."""
    import importlib
    import warnings

    de_pus = [(torch._dynamo.config, nume, valoare) for nume, valoare in OPTIUNI_DYNAMO_IMPLICITE.items()]
    for nume, valoare in alte.items():
        modul, _, cheie = nume.rpartition(".")
        de_pus.append((importlib.import_module(modul) if modul else torch._dynamo.config, cheie, valoare))
    vechi = []
    try:
        with warnings.catch_warnings():  # opțiunile vechi își anunță numele nou
            warnings.simplefilter("ignore")
            for configuratie, nume, valoare in de_pus:
                nume = _nume_optiune(configuratie, nume)
                if nume is not None:
                    vechi.append((configuratie, nume, getattr(configuratie, nume)))
                    setattr(configuratie, nume, valoare)
        atitudine = torch.compiler.set_stance("default") if hasattr(torch.compiler, "set_stance") else None
        with atitudine if atitudine is not None else contextlib.nullcontext():
            yield
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for configuratie, nume, valoare in reversed(vechi):
                setattr(configuratie, nume, valoare)


#: Mesajul pentru o soluție încă nescrisă (funcția aruncă NotImplementedError).
NESCRIS = (
    "Încă n-ai scris soluția: funcția aruncă NotImplementedError. "
    "Înlocuiește linia `raise NotImplementedError` cu codul tău."
)

def cere_functie(functie, semnatura: str, argumente: int, nume: str | None = None) -> None:
    """Răspunsul cursantului trebuie să fie o funcție chemabilă cu `argumente` argumente poziționale, ca
    în `semnatura`; altfel, o `GresealaCursant` care spune ce a primit (None, alt tip, altă semnătură).
    `nume` (de exemplu „politica_matmul”), când exercițiul cere mai multe funcții: spune despre care e vorba."""
    if functie is None:
        inceput = f"Pentru `{nume}` ai dat None" if nume else "Ai dat None"
        raise GresealaCursant(f"{inceput}: trebuia funcția `{semnatura}`.")
    if not callable(functie):
        raise GresealaCursant(f"{f'Pentru `{nume}` trebuia' if nume else 'Trebuia'} funcția `{semnatura}`, dar am primit "
                              f"{type(functie).__name__}. Dă numele funcției, fără paranteze.")
    try:
        parametri = inspect.signature(functie)
    except (TypeError, ValueError):
        return
    try:
        parametri.bind(*range(argumente))
    except TypeError:
        raise GresealaCursant(
            f"Funcția ta are semnătura `{getattr(functie, '__name__', nume or 'functie')}{parametri}`, dar verificarea o "
            f"cheamă ca `{semnatura}`, cu {cu_substantiv(argumente, 'argument', 'argumente')}."
        ) from None


_NUMAR_FUNCTII_NOI = itertools.count()


def functie_noua(functie: Callable) -> Callable:
    """O copie a lui `functie` cu un obiect de cod nou, cu nume unic: `torch.compile` o compilează de la zero,
    cu cache-ul ei Dynamo gol și cu limita ei de recompilări, fără compilările altor verificări."""
    cod = functie.__code__.replace(co_name=f"{functie.__code__.co_name}_{next(_NUMAR_FUNCTII_NOI)}")
    return types.FunctionType(cod, functie.__globals__, functie.__name__, functie.__defaults__, functie.__closure__)


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
    #: Adevărat când verificarea nu s-a putut face pe mașina asta (`MasinaNepotrivita`): răspunsul nu
    #: e nici corect, nici greșit, iar mesajul spune de ce și unde se poate verifica.
    neverificat: bool = False

    def __bool__(self) -> bool:
        return self.corect

    def text(self) -> str:
        if self.corect:
            return f"✅ {self.exercitiu}: corect! {self.mesaj}"
        if self.neverificat:
            return f"⚠️ {self.exercitiu}: neverificat. {self.mesaj}"
        return f"❌ {self.exercitiu}: {self.mesaj}"

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        import html

        culoare = "#e6f4ea" if self.corect else "#fef7e0" if self.neverificat else "#fdecea"
        bordura = "#34a853" if self.corect else "#f9ab00" if self.neverificat else "#d93025"
        return (
            f'<div style="background:{culoare};border-left:4px solid {bordura};'
            f'padding:8px 12px;white-space:pre-wrap">{html.escape(self.text())}</div>'
        )


class GresealaCursant(Exception):
    """Aruncată în interiorul unei verificări: mesajul ei (în română) ajunge la cursant. Aruncată de
    `apeleaza`, are în `exceptie` excepția codului cursantului din care provine."""

    exceptie: BaseException | None = None


class MasinaNepotrivita(GresealaCursant):
    """Aruncată când verificarea nu se poate face pe mașina asta (de exemplu, procesul care ar încărca
    răspunsul cursantului se oprește înainte de orice apel, din cauza versiunilor mașinii): rezultatul e
    `neverificat`, nu greșit, iar mesajul spune unde se poate verifica."""


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
    """Aruncată în codul cursantului când o limită de timp a expirat. E o BaseException, ca un
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
          "paznic": None, "oprire_paznic": None, "ultimul_declansat": None}
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
    prima linie executată sub limită (de obicei cea din blocul `except` care a prins-o) aruncă
    din nou `TimpDepasit`. CPython oprește urmărirea după o excepție aruncată aici; semnalul
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
    """Programează `TimpDepasit` în firul `id_fir`: e aruncată la următorul salt sau apel din el."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(id_fir), ctypes.py_object(TimpDepasit))


def _goleste_intreruperile() -> None:
    """Aruncă aici (și prinde) o întrerupere programată de paznic și rămasă nearuncată. (Anularea
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
    repornește urmărirea liniilor lui (oprită după fiecare excepție aruncată de ea)."""
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
        # Întreruperea nu-și poartă termenul (e aruncată ca o clasă, în alt fir): îl ținem minte,
        # ca o întrerupere întârziată, ajunsă după ce limita ei s-a încheiat, să fie recunoscută.
        _stare["ultimul_declansat"] = termen
        _intrerupere_in_fir(id_fir)


def _la_alarma(semnal, cadru):
    termen = _termen_expirat()
    if termen is None:
        _armeaza()
        return
    termen.declansari += 1
    if termen.declansari >= 2:
        # Prima întrerupere a fost înghițită (un `except:` gol): de acum, fiecare linie din codul
        # cursantului de sub limită o aruncă din nou.
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


#: Atributele lui `triton.language` așa cum erau înaintea oricărui kernel interpretat.
_limbajul_triton: list = []


def _obiectele_limbajului_triton() -> list:
    tl = sys.modules.get("triton.language")
    if tl is None:
        return []
    obiecte = [tl, tl.core, getattr(tl, "math", None), tl.tensor,
               getattr(tl.core, "tensor_descriptor_base", None)]
    return [obiect for obiect in obiecte if obiect is not None]


def _limbajul_triton_e_neatins() -> bool:
    tl = sys.modules.get("triton.language")
    return tl is not None and tl.core.is_builtin(getattr(tl, "program_id", None))


def repara_limbajul_triton() -> None:
    """Pune la loc funcțiile lui `triton.language` pe care interpretorul Triton le-a înlocuit
    și nu le-a mai restaurat.

    Pe procesor, interpretorul înlocuiește `tl.load`, `tl.program_id` … cu variantele lui cât
    rulează un kernel și le pune la loc după. O întrerupere (limita de timp, Ctrl+C) căzută chiar
    în acea schimbare lasă înlocuirea pe loc pentru tot restul procesului: atunci o funcție fără
    @triton.jit ar părea să meargă, iar mesajele verificărilor s-ar schimba. Prima chemare,
    cu limbajul neatins, îi reține atributele; următoarele le repun pe cele schimbate.
    Se cheamă doar când niciun kernel nu rulează în acest proces (înaintea unei verificări, după
    o întrerupere)."""
    if not _limbajul_triton:
        if _limbajul_triton_e_neatins():
            _limbajul_triton.extend((obiect, dict(vars(obiect))) for obiect in _obiectele_limbajului_triton())
        return
    for obiect, atribute in _limbajul_triton:
        actuale = vars(obiect)
        for nume, valoare in atribute.items():
            if actuale.get(nume, atribute) is not valoare:
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(obiect, nume, valoare)


@contextlib.contextmanager
def limita_timp(secunde: float | None, ce: str = "codul tău", mesaj: str | None = None):
    """Oprește blocul `with` după `secunde` și aruncă `GresealaCursant` cu un mesaj în română
    (`mesaj`, dacă e dat). Limitele se pot imbrica: contează cea care expiră prima.

    Pe Linux și macOS, în firul principal (cum rulează Jupyter), un semnal întrerupe codul; dacă
    cursantul înghite întreruperea cu un `except:` gol, semnalul revine la fiecare 0,05 s și, de
    la al doilea, și prima linie executată după el în codul cursantului (cea din `except`) o
    aruncă din nou, așa că iese și din bucla `while True: try: … except: pass`.
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
        repara_limbajul_triton()
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

    def starea_de_dinainte():
        """Ce poate lăsa în urmă un bloc întrerupt la mijloc: gradienții, configurația lui Dynamo și
        limbajul lui Triton."""
        torch.set_grad_enabled(gradient)
        _restaureaza_configuratia(configuratie)
        if primul:
            repara_limbajul_triton()

    try:
        _armeaza()
        yield
    except TimpDepasit as exceptie:
        al_cui = exceptie.termen or _termen_expirat() or _stare.get("ultimul_declansat")
        if al_cui is not None and al_cui is not termen and al_cui in _termene:
            raise
        starea_de_dinainte()
        if al_cui is not None and al_cui is not termen and al_cui.final <= time.perf_counter():
            # O întrerupere a unei limite dinăuntru, deja încheiate, ajunsă aici cu întârziere
            # (firul de pază o programase cât limita aceea își trata propria întrerupere): mesajul
            # e al limitei dinăuntru, nu al acesteia, care nu expirase.
            raise GresealaCursant(_mesaj_timp(al_cui)) from None
        raise GresealaCursant(mesaj or _mesaj_timp(termen)) from None
    except Exception:
        if not (termen.declansari and termen.final <= time.perf_counter()):
            raise
        # Întreruperea acestei limite a fost aruncată, dar a ieșit din bloc sub altă formă: căzută
        # în codul C++ al lui torch (de exemplu în urmărirea cu tensori *fake* a lui Dynamo), ea
        # devine un TypeError sau un RuntimeError care îi poartă doar textul, iar o verificare poate
        # s-o fi explicat deja ca greșeală a cursantului. Cauza e tot timpul depășit.
        starea_de_dinainte()
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
            _stare["ultimul_declansat"] = None
        else:
            if not any(t.declansari >= 2 for t in _termene) and _stare["mod"] == "semnal":
                _opreste_urmarirea()
            _armeaza()


# ---------------------------------------------------------------------------------------------
# Excepțiile codului cursantului, explicate
# ---------------------------------------------------------------------------------------------

_SFATURI = {
    NotImplementedError: "O parte din cod încă aruncă NotImplementedError: termin-o.",
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


# ---------------------------------------------------------------------------------------------
# Excepțiile, spuse în română
# ---------------------------------------------------------------------------------------------

#: Cât din mesajul original (în engleză) al unei excepții rămâne în mesajul pentru cursant: un
#: singur rând, după explicația în română.
LUNGIME_ORIGINAL = 120


@dataclass(frozen=True)
class ExceptieTradusa:
    """O excepție spusă în română: `explicatie` (fără punct final, cu cifrele esențiale),
    `original` (prima linie cu sens a mesajului original, cel mult `LUNGIME_ORIGINAL` caractere, sau
    „”) și `recunoscuta` (fals când explicația e doar cea generică, după tipul excepției)."""

    tip: str
    explicatie: str
    original: str = ""
    recunoscuta: bool = True


def original_scurt(text: Any, maxim: int = LUNGIME_ORIGINAL) -> str:
    """Prima linie cu sens a unui mesaj (al unei excepții, al lui Dynamo), pe un singur rând, cel mult
    `maxim` caractere (tăiată cu „…”). Sare peste rândurile de umplutură ale lui Dynamo („Graph
    break …”) și taie lista de variante a unei funcții PyTorch („, but expected one of: …”)."""
    text = str(text)
    for linie in text.splitlines():
        linie = " ".join(linie.split())
        if linie and not linie.startswith(("Graph break", "Encountered graph break")):
            break
    else:
        linie = " ".join(text.split())
    linie = re.split(r",? but expected one of:|, known options are", linie)[0].rstrip(" :")
    return linie if len(linie) <= maxim else linie[: maxim - 1].rstrip() + "…"


def cu_originalul(original: Any) -> str:
    """„ Mesajul original: „…”.” (un rând), de pus după explicația în română; „” dacă nu e nimic."""
    text = original_scurt(original) if not isinstance(original, ExceptieTradusa) else original.original
    text = text.replace("„", "\"").replace("”", "\"")
    return f" Mesajul original: „{text}”." if text else ""


def _numar(text: str) -> str:
    """Un număr din mesajul unei excepții, scris ca în curs („0,428571”, „0,00001”)."""
    try:
        valoare = float(text)
    except ValueError:
        return text
    if valoare.is_integer() and abs(valoare) < 1e15:
        return format_numar(int(valoare))
    return numar_precis(valoare)


def _forma(text: str) -> str:
    """„[2, 3]”, „2x3”, „torch.Size([2, 3])” → „(2, 3)”."""
    cifre = re.findall(r"-?\d+", text.replace("torch.Size", ""))
    return "(" + ", ".join(cifre) + ("," if len(cifre) == 1 else "") + ")"


def _tip_date(text: str) -> str:
    """Numele unui tip de date din mesajele PyTorch și Triton, așa cum îl scrii în PyTorch."""
    text = text.strip().strip("'\"").replace("c10::", "")
    nume = {
        "float": "torch.float32", "Float": "torch.float32", "fp32": "float32", "double": "torch.float64",
        "Double": "torch.float64", "fp64": "float64", "Half": "torch.float16", "half": "torch.float16",
        "fp16": "float16", "BFloat16": "torch.bfloat16", "bf16": "bfloat16", "Long": "torch.int64",
        "long": "torch.int64", "Int": "torch.int32", "int": "torch.int32", "Bool": "torch.bool", "bool": "torch.bool",
    }
    return nume.get(text, text)


def _lista_tipuri(text: str) -> str:
    """„['fp32', 'fp64']” → „float32 sau float64”."""
    return " sau ".join(_tip_date(t) for t in re.findall(r"\w+", text))


def _diferenta_assert_close(text: str) -> str | None:
    """Mesajul lui `torch.testing.assert_close`, spus în română, cu cifrele lui."""
    atribut = re.search(r"The values for attribute '(\w+)' do not match: (.+?) != (.+?)\.?$", text, re.M)
    if atribut:
        ce, obtinut, asteptat = atribut.groups()
        if ce == "shape":
            return f"formele diferă: rezultatul are forma {_forma(obtinut)}, iar cel așteptat {_forma(asteptat)}"
        if ce == "dtype":
            return f"tipurile de date diferă: rezultatul e {_tip_date(obtinut)}, iar cel așteptat {_tip_date(asteptat)}"
        if ce == "device":
            return f"dispozitivele diferă: rezultatul e pe {obtinut}, iar cel așteptat pe {asteptat}"
        return f"atributul `{ce}` diferă: {obtinut} față de {asteptat}"
    if not re.search(r"(Tensor-likes|Scalars) are not (close|equal)!", text):
        return None
    parti = []
    nepotrivite = re.search(r"Mismatched elements: (\d+) / (\d+) \(([\d.]+)%\)", text)
    if nepotrivite:
        gresite, total, procent = nepotrivite.groups()
        parti.append(f"{format_numar(int(gresite))} din {format_numar(int(total))} elemente "
                     f"({format_numar(round(float(procent), 1))}%) ies din toleranță")
    scalar = re.search(r"Expected (\S+) but got (\S+?)\.?$", text, re.M)
    if scalar:
        parti.append(f"se aștepta {_numar(scalar.group(1))}, a venit {_numar(scalar.group(2))}")
    for fel, eticheta in (("absolute", "absolută"), ("relative", "relativă")):
        potrivire = re.search(
            rf"(?:Greatest {fel} difference|{fel.capitalize()} difference): (\S+)(?: at index (\([^)]*\)))?"
            rf"(?: \(up to (\S+) allowed\))?", text)
        if potrivire:
            valoare, pozitie, toleranta = potrivire.groups()
            fraza = f"cea mai mare diferență {eticheta}: {_numar(valoare)}"
            if pozitie:
                fraza += f", la poziția {pozitie}"
            if toleranta:
                fraza += f" (toleranța: {_numar(toleranta)})"
            parti.append(fraza)
    egal = "equal" in text.split("!")[0]
    inceput = "valorile nu sunt egale" if egal else "valorile nu sunt apropiate"
    return f"{inceput} (comparația `torch.testing.assert_close`)" + (": " + "; ".join(parti) if parti else "")


# Fiecare regulă: (tipar, funcție care primește potrivirea și întoarce explicația).
_REGULI_TRADUCERE: list[tuple[re.Pattern, Callable[[re.Match], str]]] = [
    # forme
    (re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)"),
     lambda p: f"formele nu se potrivesc la un produs de matrice: {p[1]} × {p[2]} și {p[3]} × {p[4]}; numărul de "
               f"coloane al primei ({p[2]}) trebuie să fie egal cu numărul de rânduri al celei de-a doua ({p[3]})"),
    (re.compile(r"a and b must have same reduction dim, but got \[([^\]]*)\] X \[([^\]]*)\]"),
     lambda p: f"formele nu se potrivesc la un produs de matrice: {_forma(p[1])} și {_forma(p[2])}; ultima dimensiune "
               "a primei trebuie să fie egală cu prima dimensiune a celei de-a doua"),
    (re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension (\d+)"),
     lambda p: f"formele nu se potrivesc pe dimensiunea {p[3]}: {p[1]} față de {p[2]}, și niciuna nu e 1, ca să se "
               "poată extinde (*broadcast*) la cealaltă"),
    (re.compile(r"expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\) at non-singleton "
                r"dimension (\d+)"),
     lambda p: f"un tensor nu se poate extinde pe dimensiunea {p[3]}: are mărimea {p[2]}, iar extinderea cere {p[1]} "
               "(se poate extinde doar o dimensiune de mărime 1)"),
    (re.compile(r"shape '\[([^\]]*)\]' is invalid for input of size (\d+)(?![\w*])"),
     lambda p: f"forma {_forma(p[1])} nu se potrivește cu un tensor de {format_numar(int(p[2]))} elemente: produsul "
               "dimensiunilor trebuie să fie chiar numărul elementelor"),
    (re.compile(r"shape '\[([^\]]*)\]' is invalid for input of size (\S*?\b[su]\d+\S*)"),
     lambda p: f"forma {_forma(p[1])}, cu mărimi scrise de mână, nu se potrivește cu un tensor al cărui număr de "
               f"elemente depinde de o mărime dinamică (`{p[2]}`: `s…` e o mărime simbolică, de exemplu lotul, pe care "
               "exportul sau compilarea n-o știu dinainte); ia mărimile din tensor (`x.shape[0]`) sau folosește `-1`"),
    (re.compile(r"Sizes of tensors must match except in dimension (\d+)\. Expected size (\d+) but got size (\d+) "
                r"for tensor number (\d+)"),
     lambda p: f"tensorii lipiți (`torch.cat`) trebuie să aibă aceleași mărimi în afară de dimensiunea {p[1]}: tensorul "
               f"cu numărul {p[4]} are {p[3]}, iar primul {p[2]}"),
    (re.compile(r"stack expects each tensor to be equal size, but got \[([^\]]*)\] at entry (\d+) and \[([^\]]*)\] "
                r"at entry (\d+)"),
     lambda p: f"`torch.stack` cere tensori de aceeași formă: elementul {p[2]} are forma {_forma(p[1])}, iar "
               f"elementul {p[4]} forma {_forma(p[3])}"),
    (re.compile(r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)"),
     lambda p: f"dimensiunea {p[3]} nu există: tensorul are dimensiunile de la {p[1]} la {p[2]}"),
    (re.compile(r"index (-?\d+) is out of bounds for dimension (\d+) with size (\d+)"),
     lambda p: f"indicele {p[1]} iese din limite pe dimensiunea {p[2]}, care are mărimea {p[3]} (indicii merg de la 0 "
               f"la {int(p[3]) - 1})"),
    (re.compile(r"a Tensor with (\d+) elements cannot be converted to Scalar"),
     lambda p: f"ai cerut un număr Python (`.item()`, `float()`) dintr-un tensor cu {format_numar(int(p[1]))} "
               "elemente; se poate doar dintr-un tensor cu un singur element"),
    (re.compile(r"Boolean value of Tensor with more than one value is ambiguous"),
     lambda p: "ai folosit un tensor cu mai multe elemente ca valoare de adevăr (într-un `if`, `and`, `or`); spune "
               "ce vrei: `.any()` sau `.all()`"),
    (re.compile(r"number of dimensions in the tensor input does not match the length of the desired ordering of "
                r"dimensions.*?input\.dim\(\) = (\d+) is not equal to len\(dims\) = (\d+)"),
     lambda p: f"`permute` trebuie să primească toate dimensiunile tensorului ({p[1]}), nu {p[2]}"),
    # tipuri de date
    (re.compile(r"Expected dtype \[([^\]]*)\] but got (\w+)"),
     lambda p: f"operația Triton cere tipul {_lista_tipuri(p[1])}, dar a primit {_tip_date(p[2])}; convertește "
               "valoarea înainte, de exemplu cu `.to(tl.float32)`"),
    (re.compile(r"expected m1 and m2 to have the same dtype, but got: (\S+) != (\S+)"),
     lambda p: f"cele două matrice ale produsului au tipuri de date diferite: {_tip_date(p[1])} și {_tip_date(p[2])}"),
    (re.compile(r"(?:mat1|self) and mat2 must have the same dtype, but got (\w+) and (\w+)"),
     lambda p: f"cele două matrice ale produsului au tipuri de date diferite: {_tip_date(p[1])} și {_tip_date(p[2])}"),
    (re.compile(r"expected (?:scalar type|object of scalar type) (\w+) but (?:found|got scalar type) (\w+)", re.I),
     lambda p: f"tipul de date nu e cel așteptat: se aștepta {_tip_date(p[1])}, a venit {_tip_date(p[2])}"),
    (re.compile(r"result type (\w+) can't be cast to the desired output type (\w+)"),
     lambda p: f"rezultatul are tipul {_tip_date(p[1])} și nu poate fi scris într-un tensor de tipul {_tip_date(p[2])} "
               "(o operație pe loc sau cu `out=`)"),
    # dispozitive
    (re.compile(r"Expected all tensors to be on the same device, but found at least two devices, (\S+?) and (\S+?)!"),
     lambda p: f"tensorii sunt pe dispozitive diferite: {p[1]} și {p[2]}; mută-i pe același dispozitiv (`.to(…)`)"),
    (re.compile(r"Expected all tensors to be on the same device, but got (\w+) is on (\S+?), different from other "
                r"tensors on (\S+?)(?: \(|$)"),
     lambda p: f"tensorii sunt pe dispozitive diferite: argumentul `{p[1]}` e pe {p[2]}, ceilalți pe {p[3]}"),
    (re.compile(r"Tensor on device (\S+) is not on the expected device (\S+?)!"),
     lambda p: f"un tensor e pe {p[1]}, dar operația îl aștepta pe {p[2]}"),
    # memorie
    (re.compile(r"out of memory\. Tried to allocate ([\d.]+) ?(\w+)", re.I),
     lambda p: f"memoria GPU-ului nu ajunge: încerca să aloce încă {_numar(p[1])} {p[2]}"),
    (re.compile(r"out of resource: ([\w ]+), Required: (\d+), Hardware limit: (\d+)"),
     lambda p: f"kernel-ul cere mai mult decât are GPU-ul din resursa „{p[1]}”: {format_numar(int(p[2]))}, față de "
               f"cel mult {format_numar(int(p[3]))}; micșorează blocurile sau `num_stages`"),
    # gradienți
    (re.compile(r"a leaf Variable that requires grad is being used in an in-place operation"),
     lambda p: "o operație pe loc pe un tensor-frunză care cere gradient (un parametru); fă-o sub `torch.no_grad()`"),
    (re.compile(r"element (\d+) of tensors does not require grad and does not have a grad_fn"),
     lambda p: "ai cerut gradientul unui rezultat care nu depinde de niciun tensor cu `requires_grad=True`"),
    (re.compile(r"Trying to backward through the graph a second time"),
     lambda p: "ai chemat `backward()` de două ori pe același graf de calcul (după primul, graful e eliberat)"),
    # Triton
    (re.compile(r"arange's range must be a power of 2"),
     lambda p: "lungimea lui `tl.arange` trebuie să fie o putere a lui 2"),
    (re.compile(r"arange's arguments must be of type tl\.constexpr"),
     lambda p: "capetele lui `tl.arange` trebuie să fie constante la compilare (`tl.constexpr`)"),
    (re.compile(r"^([\w.<>]+)\(\): argument '(\w+)' \(position (\d+)\) must be ([\w.]+), not ([\w.]+)"),
     lambda p: f"argumentul `{p[2]}` (poziția {p[3]}) al lui `{p[1]}()` trebuie să fie {p[4]}, dar a primit {p[5]}"),
    # Python
    (re.compile(r"^([\w.<>]+)\(\) received an invalid combination of arguments - got \(([^)]*)\)"),
     lambda p: f"apelul `{p[1]}()` a primit argumente de tipurile ({p[2]}), o combinație pe care `{p[1]}` n-o acceptă"),
    (re.compile(r"^([\w.<>]+)\(\) missing (\d+) required (?:positional |keyword-only )?arguments?: (.+)$"),
     lambda p: f"funcției `{p[1].split('.')[-1]}` îi lipsește argumentul {p[3]}" if p[2] == "1"
               else f"funcției `{p[1].split('.')[-1]}` îi lipsesc {p[2]} argumente: {p[3]}"),
    (re.compile(r"^([\w.<>]+)\(\) takes (\d+) positional arguments? but (\d+) (?:was|were) given"),
     lambda p: f"funcția `{p[1].split('.')[-1]}` primește "
               f"{cu_substantiv(int(p[2]), 'argument pozițional', 'argumente poziționale')}, dar a primit {p[3]}"),
    (re.compile(r"Unexpected optimization option ([\w.]+)"),
     lambda p: f"Inductor nu are opțiunea `{p[1]}`: `options=` primește doar nume din `torch._inductor.config`"),
    (re.compile(r"^([\w.<>]+)\(\) got an unexpected keyword argument '(\w+)'"),
     lambda p: f"funcția `{p[1].split('.')[-1]}` nu are un argument numit `{p[2]}`"),
    (re.compile(r"'(\w+)' object has no attribute '(\w+)'"),
     lambda p: f"un obiect de tip `{p[1]}` nu are atributul `{p[2]}`"),
    (re.compile(r"module '([\w.]+)' has no attribute '(\w+)'"),
     lambda p: f"modulul `{p[1]}` nu are atributul `{p[2]}`"),
    (re.compile(r"'(\w+)' object is not (callable|subscriptable|iterable)"),
     lambda p: f"un obiect de tip `{p[1]}` nu " + {"callable": "se poate chema ca o funcție",
                                                   "subscriptable": "se poate indexa cu `[…]`",
                                                   "iterable": "se poate parcurge"}[p[2]]),
    (re.compile(r"unsupported operand type\(s\) for ([^:]+): '(\w+)' and '(\w+)'"),
     lambda p: f"operația `{p[1].strip()}` nu merge între un `{p[2]}` și un `{p[3]}`"),
    (re.compile(r"name '(\w+)' is not defined"),
     lambda p: f"numele `{p[1]}` nu e definit (ai rulat celula în care îl definești?)"),
    (re.compile(r"^(?:list|tuple) index out of range$"),
     lambda p: "un indice iese din listă (ai cerut un element după ultimul)"),
    (re.compile(r"^(?:float |integer )?division (?:or modulo )?by zero$"),
     lambda p: "ai împărțit la zero"),
    (re.compile(r"^maximum recursion depth exceeded"),
     lambda p: "funcția se apelează pe ea însăși fără oprire"),
]


def _lant(eroare: BaseException) -> list[BaseException]:
    lant, vazute = [], set()
    while eroare is not None and id(eroare) not in vazute:
        vazute.add(id(eroare))
        lant.append(eroare)
        eroare = eroare.__cause__ or (None if eroare.__suppress_context__ else eroare.__context__)
    return lant


def _traduce_text(text: str, tip_exceptie: type | None = None) -> str | None:
    """Explicația în română a unui mesaj de eroare cunoscut, sau None."""
    explicatie = _diferenta_assert_close(text)
    if explicatie:
        return explicatie
    for tipar, traducere in _REGULI_TRADUCERE:
        potrivire = tipar.search(text) or tipar.search(text.strip())
        if potrivire:
            return traducere(potrivire)
    if tip_exceptie is not None and issubclass(tip_exceptie, KeyError):
        cheie = text.strip()
        return f"cheia {cheie} nu există în dicționar" if cheie else "o cheie nu există în dicționar"
    return None


def traduce_mesaj(text: str, tip: type | str | None = None) -> str | None:
    """Explicația în română a unui mesaj de eroare cunoscut (textul unei excepții de tipul `tip`,
    dat ca clasă sau ca nume: „KeyError”), sau None dacă mesajul nu e unul cunoscut."""
    if isinstance(tip, str):
        tip = getattr(builtins, tip, None)
    return _traduce_text(str(text), tip if isinstance(tip, type) else None)


def descrie_garda(text: str) -> str:
    """Garda căzută a unei recompilări (din `torch._dynamo.utils.guard_failures`), spusă în română:
    „tensorul `x` are altă mărime pe dimensiunea 0: 4, față de 3 la compilare” sau, pentru o gardă
    scrisă ca o expresie Python, chiar expresia, între backtick-uri („`s.prag == 0.5`”)."""
    text = re.sub(r"^\d+/\d+: ", "", str(text).strip())
    reguli = (
        (r"tensor '(.+?)' size mismatch at index (\d+)\. expected (\d+), actual (\d+)",
         lambda p: f"tensorul `{p[1]}` are altă mărime pe dimensiunea {p[2]}: {p[4]}, față de {p[3]} la compilare"),
        (r"tensor '(.+?)' stride mismatch at index (\d+)\. expected (\d+), actual (\d+)",
         lambda p: f"tensorul `{p[1]}` are alt pas în memorie (*stride*) pe dimensiunea {p[2]}: {p[4]}, față de {p[3]}"),
        (r"tensor '(.+?)' dtype mismatch\. expected (\w+), actual (\w+)",
         lambda p: f"tensorul `{p[1]}` are alt tip de date: {_tip_date(p[3])}, față de {_tip_date(p[2])} la compilare"),
        (r"tensor '(.+?)' requires_grad mismatch\. expected requires_grad=(\d)",
         lambda p: f"tensorul `{p[1]}` " + ("nu mai cere" if p[2] == "1" else "cere acum") + " gradient (`requires_grad`)"),
        (r"tensor '(.+?)' (?:device|dispatch key set) mismatch",
         lambda p: f"tensorul `{p[1]}` e pe alt dispozitiv (sau are alte chei de dispatch) decât la compilare"),
        (r"tensor '(.+?)' rank mismatch\. expected (\d+), actual (\d+)",
         lambda p: f"tensorul `{p[1]}` are {p[3]} dimensiuni, față de {p[2]} la compilare"),
        (r"^(.+?) == (.+?)\s+# duck sizing added this equality because these variables had the same size (\d+)",
         lambda p: f"`{p[1]} == {p[2]}`: la compilare, cele două mărimi erau egale ({p[3]}), iar Dynamo a presupus "
                   "că rămân egale (*duck sizing*); la o formă cu mărimi diferite, garda cade"),
    )
    for tipar, traducere in reguli:
        potrivire = re.search(tipar, text)
        if potrivire:
            return traducere(potrivire)
    expresie = re.split(r"\s+#", text.splitlines()[0])[0].strip() if text else ""
    return f"`{original_scurt(expresie)}`" if expresie else ""


def _sfat_generic(eroare: BaseException) -> str:
    sfat = next((s for t, s in _SFATURI.items() if isinstance(eroare, t)), "")
    if sfat and not sfat.startswith("PyTorch"):
        sfat = sfat[0].lower() + sfat[1:]
    sfat = sfat or "eroarea nu e una pe care s-o pot explica mai pe larg"
    return sfat.rstrip(".")


def traduce_exceptie(eroare: BaseException) -> ExceptieTradusa:
    """Excepția `eroare` spusă în română, cu cifrele ei esențiale: diferențele găsite de
    `torch.testing.assert_close` (câte elemente, cea mai mare diferență, unde, toleranțele),
    tipuri de date, forme sau dispozitive nepotrivite, argumentele greșite ale unei funcții (fără
    lista de variante), întreruperile grafului sub `fullgraph=True`, erorile lui Triton; altfel, un
    sfat după tipul excepției. Erorile învelite de Dynamo (`TorchRuntimeError`,
    `BackendCompilerFailed`) și de interpretorul Triton sunt despachetate: se explică cea din
    interior. Mesajul original rămâne în `original`, un singur rând."""
    from ..inspectie import categorie_intrerupere

    tip = type(eroare).__name__
    exc = getattr(torch._dynamo, "exc", None)
    # 1. Învelișurile: se explică excepția din interior.
    if exc is not None and isinstance(eroare, getattr(exc, "BackendCompilerFailed", ())):
        interioara = getattr(eroare, "inner_exception", None) or eroare.__cause__
        if interioara is not None and interioara is not eroare:
            tradusa = traduce_exceptie(interioara)
            return ExceptieTradusa(tip, f"backend-ul a refuzat graful ({tradusa.tip}: {tradusa.explicatie})",
                                   tradusa.original, tradusa.recunoscuta)
    if exc is not None and isinstance(eroare, getattr(exc, "TorchRuntimeError", ())):
        interioara = re.search(r"got (\w+)\((['\"])(.*?)\2\)", str(eroare), re.S)
        if interioara:
            tip_interior = interioara.group(1)
            text = interioara.group(3).replace("\\n", "\n").replace("\\'", "'").replace('\\"', '"')
            explicatie = traduce_mesaj(text, tip_interior) or "o operație pe tensori a eșuat"
            return ExceptieTradusa(tip, f"{explicatie} (Dynamo a încercat operația pe tensori fără date, *fake*, "
                                        f"și a primit {tip_interior})", original_scurt(text))
    interioare = _lant(eroare)[1:]
    if interioare and type(eroare).__name__ in ("InterpreterError", "InternalTorchDynamoError"):
        tradusa = traduce_exceptie(interioare[0])
        return ExceptieTradusa(tip, tradusa.explicatie, tradusa.original, tradusa.recunoscuta)
    text = str(eroare)
    if getattr(eroare, "error_message", None) and hasattr(eroare, "src"):  # triton.compiler.CompilationError
        text = str(eroare.error_message)
    # 2. O întrerupere a grafului, transformată în eroare (`fullgraph=True`).
    if exc is not None and isinstance(eroare, getattr(exc, "Unsupported", ())):
        categorie = categorie_intrerupere(text)
        return ExceptieTradusa(
            tip, "Dynamo nu poate urmări o linie din codul tău într-un singur graf (o întrerupere a grafului)"
            + (f": {categorie}" if categorie != "alt motiv" else ""), original_scurt(getattr(eroare, "gb_type", None) or text))
    # 3. Mesajele cunoscute.
    explicatie = _traduce_text(text, type(eroare))
    if explicatie is not None:
        return ExceptieTradusa(tip, explicatie, original_scurt(text))
    return ExceptieTradusa(tip, _sfat_generic(eroare), original_scurt(text), recunoscuta=False)


def explica_exceptie(eroare: BaseException, cine: str = "Codul tău", linie: tuple[int, str] | None = None,
                     original: bool = True) -> str:
    """O excepție ca text pentru cursant: tipul ei, linia din codul cursantului unde a apărut, ce
    s-a întâmplat, în română, cu cifrele esențiale (`traduce_exceptie`), și, la sfârșit, un rând din
    mesajul original (fără el, cu `original=False`, ca cine adaugă un sfat să-l pună la capăt, cu
    `cu_originalul`). Pentru `raise NotImplementedError`, `NESCRIS`."""
    if _e_stub(eroare):
        return NESCRIS
    tradusa = traduce_exceptie(eroare)
    linie = linie or linia_cursantului(eroare)
    unde = f" la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else (f" la linia {linie[0]}" if linie else "")
    return f"{cine} a aruncat {tradusa.tip}{unde}: {tradusa.explicatie}." + (cu_originalul(tradusa) if original else "")


def _mesaj_interzis(nume: str) -> str:
    return (
        f"Funcția ta cheamă `{nume}`, funcția cursului care dă chiar răspunsul (calculul gata făcut). "
        "Exercițiul îți cere să-l scrii tu."
    )


#: Mesajul pentru codul care oprește (sau schimbă) urmărirea apelurilor cu care `apeleaza` vede
#: funcțiile interzise.
OCOLIRE_URMARIRE = (
    "Funcția ta schimbă `sys.setprofile`, prin care verificarea vede ce funcții chemi (ca să nu folosești "
    "funcția cursului care dă chiar răspunsul). Așa ocolești verificarea, nu rezolvi exercițiul: scoate apelul "
    "și scrie calculul tu."
)


def _amprenta_codului(cod) -> tuple:
    """Ce face un obiect de cod, fără numele lui, fără linia și fișierul lui: instrucțiunile, numele
    folosite, constantele (recursiv, pentru funcțiile din el) și argumentele. O copie a unei funcții
    cu alt nume (`__code__.replace(co_name=...)`) are aceeași amprentă."""
    constante = tuple(_amprenta_codului(c) if hasattr(c, "co_code") else (type(c).__name__, repr(c))
                      for c in cod.co_consts)
    return (cod.co_code, cod.co_names, constante, cod.co_argcount, cod.co_kwonlyargcount, cod.co_flags)


def apeleaza(functie: Callable, *argumente, limita_s: float | None = LIMITA_APEL_S, ce: str | None = None,
             interzise: dict[Callable, str] | None = None, paza_stricta: bool = False, **argumente_numite) -> Any:
    """Apelează codul cursantului, cu o limită de timp (`limita_s` secunde; None = fără limită).

    Orice excepție devine o `GresealaCursant` cu explicație (`explica_exceptie`); depășirea
    limitei, la fel. `ce` descrie apelul în mesajul despre timp („funcția ta pentru lotul 8”).
    `interzise` ({funcție: nume}) sunt funcțiile cursului care dau chiar răspunsul cerut: dacă
    codul cursantului cheamă vreuna (direct sau printr-un alt nume), răspunsul e respins. Cu
    `paza_stricta` (pentru o funcție Python pură, fără profiler), și o copie a uneia dintre ele cu
    alt obiect de cod (aceleași instrucțiuni, alt nume), și codul care oprește sau schimbă
    `sys.setprofile`, prin care se văd apelurile."""
    if not callable(functie):
        raise GresealaCursant(
            f"Trebuia o funcție, dar am primit {type(functie).__name__}. Dă numele funcției, fără paranteze."
        )
    nume = getattr(functie, "__name__", None)
    descriere = ce or (f"funcția ta `{nume}`" if nume and nume != "<lambda>" else "codul tău")
    coduri = {f.__code__: n for f, n in (interzise or {}).items() if hasattr(f, "__code__")}
    if functie in (interzise or {}):
        raise GresealaCursant(_mesaj_interzis(interzise[functie]))
    amprente = {_amprenta_codului(c): n for c, n in coduri.items()} if paza_stricta else {}
    lungimi = {(len(c.co_code), c.co_argcount) for c in coduri} if paza_stricta else set()
    folosite: list[str] = []
    profil_vechi = sys.getprofile()
    schimba_profilul = sys.setprofile
    urmaresc = [True]  # fals cât `apeleaza` însăși pune profilul la loc (și ea cheamă `sys.setprofile`)
    if coduri:
        def profil(cadru, eveniment, argument):
            if eveniment == "call":
                cod = cadru.f_code
                if cod in coduri:
                    folosite.append(coduri[cod])
                elif lungimi and (len(cod.co_code), cod.co_argcount) in lungimi:
                    gasita = amprente.get(_amprenta_codului(cod))
                    if gasita is not None:
                        folosite.append(gasita)
            elif paza_stricta and urmaresc[0] and eveniment == "c_call" and argument is schimba_profilul:
                folosite.append(OCOLIRE_URMARIRE)

        sys.setprofile(profil)
    gradient = torch.is_grad_enabled()
    try:
        with limita_timp(limita_s, descriere):
            rezultat = functie(*argumente, **argumente_numite)
    except GresealaCursant:
        raise
    except Exception as eroare:  # orice altă eroare a codului cursantului
        greseala = GresealaCursant(explica_exceptie(eroare))
        greseala.exceptie = eroare  # pentru verificările care o explică mai pe larg
        raise greseala from None
    finally:
        if coduri:
            urmaresc[0] = False
            if paza_stricta and sys.getprofile() is not profil:
                folosite.append(OCOLIRE_URMARIRE)
            sys.setprofile(profil_vechi)
        torch.set_grad_enabled(gradient)
    if folosite:
        ocolire = OCOLIRE_URMARIRE in folosite
        raise GresealaCursant(OCOLIRE_URMARIRE if ocolire else _mesaj_interzis(folosite[0]))
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
    """Aruncă `GresealaCursant` cu o explicație dacă `obtinut` diferă de `asteptat`. Ordinea:
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
        tradusa = traduce_exceptie(eroare)
        raise GresealaCursant(
            f"Nu am putut compara rezultatul tău cu cel așteptat{unde} ({tradusa.tip}): {tradusa.explicatie}."
            f"{cu_originalul(tradusa)}"
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
    rulare (ca un răspuns scris fix în cod să nu treacă), aceleași dacă dai `semanta` sau
    variabila de mediu `CURS_SEMINTA` (ca o greșeală să poată fi reprodusă)."""
    if semanta is None and os.environ.get("CURS_SEMINTA"):
        semanta = int(os.environ["CURS_SEMINTA"])
    if semanta is None:
        semanta = int.from_bytes(os.urandom(4), "little")
    return random.Random(semanta)


def verificare(exercitiu: str, corp: Callable[[], str], limita_s: float | None = LIMITA_VERIFICARE_S) -> Rezultat:
    """Rulează `corp()`, care fie întoarce mesajul de succes, fie aruncă `GresealaCursant`, și
    întoarce un `Rezultat`. Toată verificarea are o limită de timp (`limita_s`), iar o eroare
    neprevăzută devine tot un mesaj, nu un traceback."""
    try:
        with limita_timp(limita_s, "verificarea", mesaj=(
            f"Verificarea a depășit {format_timp(limita_s or 0)}: codul tău e mult prea lent (sau nu se "
            "oprește). Caută o buclă fără sfârșit sau o variantă care repetă inutil munca."
        )):
            mesaj = corp()
        return Rezultat(exercitiu, True, mesaj or "")
    except MasinaNepotrivita as motiv:
        return Rezultat(exercitiu, False, str(motiv), neverificat=True)
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
