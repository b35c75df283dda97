"""Verificările exercițiilor din capitolul 10 — FlexAttention (`torch.nn.attention.flex_attention`).

- exercițiul 1: `fereastra_cu_prefix(fereastra, prefix)` întoarce un `mask_mod(b, h, q_idx, kv_idx)`
  pentru atenția cauzală cu fereastră glisantă plus un prefix pe care îl vede oricine (ca la un
  model de limbaj cu prefix): perechea e permisă dacă
  `(kv_idx <= q_idx și q_idx - kv_idx < fereastra) sau kv_idx < prefix`;
- exercițiul 2: `softcap(limita)` întoarce un `score_mod(score, b, h, q_idx, kv_idx)` care limitează
  lin scorurile: `limita * tanh(score / limita)` (ca în Gemma 2);
- exercițiul 3: `masca_documente(lungimi, dispozitiv)` primește lungimile unor documente puse unul
  după altul (o listă de întregi pozitivi, în total S = sum(lungimi) jetoane) și dispozitivul pe
  care verificarea rulează atenția (`dispozitivul()`: GPU-ul, dacă există și e cel puțin Ampere,
  altfel procesorul) și întoarce un `BlockMask` (din `create_block_mask(mask_mod, None, None, S, S,
  device=dispozitiv)`) pentru atenția cauzală în interiorul fiecărui document: un jeton vede doar jetoanele documentului
  lui aflate înaintea lui sau chiar pe poziția lui.

Fiecare verificare alege la întâmplare mărimile, fereastra, prefixul, limitele și împărțirile în
documente (altele la fiecare rulare; `CURS_SEMINTA=…` în mediu le fixează), dar cazurile care decid
verdictul sunt în fiecare rulare: mai multe loturi și capete (o funcție care depinde de `b` sau de `h`
se vede), o secvență lungă, de multe blocuri (o greșeală departe de diagonală se vede), o a doua
împărțire cu alt număr de documente. Verifică principiul, nu doar o valoare: masca se calculează din
indici (fără un tabel S × S ascuns în funcție), masca pe blocuri sare peste tot atâtea blocuri cât se
poate, iar o împărțire nouă în documente nu recompilează `flex_attention` compilat. Verificarea nu
ține nicio funcție de referință pe care codul tău s-o poată chema: compară cu măștile dense, calculate
din definiția exercițiului. Codul tău se apelează numai prin `apeleaza` (din `baza`), cu o limită de
timp, și nu are voie să schimbe configurația compilatorului; o greșeală devine o explicație în română,
nu un traceback.
"""

from __future__ import annotations

import contextlib
import dis
import functools
import inspect
import itertools
import math
import re
import types

import torch
from torch.nn.attention import flex_attention as _modul_flex

from ..capitole.cap10_flex import CAPABILITATE_MINIMA
from ..cifre import cu_substantiv, format_numar, format_procent
from .baza import (
    cere_functie,
    functie_noua,
    GresealaCursant,
    Rezultat,
    apeleaza,
    compara_tensori,
    configuratia_compilatorului,
    configuratie_dynamo_implicita,
    cu_originalul,
    descrie_garda,
    explica_exceptie,
    fara_jurnale_torch,
    generator_aleator,
    linia_cursantului,
    numar_precis,
    schimbari_configuratie,
    traduce_exceptie,
    verificare,
)

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "dispozitivul",
    "LIMITA_APEL_S",
    "LIMITA_COMPILARE_S",
    "LIMITE_SOFTCAP",
    "LUNGIME_LUNGA",
    "LUNGIME_RECOMPILARE",
    "LOTURI_PROBA",
    "CAPETE_PROBA",
    "INDICE_SONDA",
]

#: Cât are voie să dureze un apel al codului tău (funcția ta, o mască pe toate pozițiile).
LIMITA_APEL_S = 30.0
#: Cât are voie să dureze compilarea lui `flex_attention` cu masca ta (exercițiul 3; pe un procesor
#: cu două nuclee, în jur de 5 s).
LIMITA_COMPILARE_S = 240.0
#: Între ce valori alege verificarea limita din exercițiul 2.
LIMITE_SOFTCAP = (2.5, 40.0)

_LIMITA_1_S = 120.0
_LIMITA_2_S = 120.0
_LIMITA_3_S = 3 * LIMITA_COMPILARE_S


def dispozitivul() -> torch.device:
    """Dispozitivul pe care rulează verificările: GPU-ul, dacă există și are capabilitatea 8.0 sau mai mare
    (Ampere, Hopper: FlexAttention compilată merge sigur acolo), altfel procesorul (și pe un GPU mai vechi,
    ca T4, unde kernel-ul compilat poate să nu încapă). Exercițiul 3 îl dă funcției tale ca al doilea
    argument, `dispozitiv`."""
    try:
        if torch.cuda.is_available() and torch.cuda.get_device_capability() >= CAPABILITATE_MINIMA:
            return torch.device("cuda")
    except Exception:  # pragma: no cover - un driver care nu răspunde
        pass
    return torch.device("cpu")


# ---------------------------------------------------------------------------------------------
# Unelte comune
# ---------------------------------------------------------------------------------------------


def _flex():
    return _modul_flex


def _pe_gpu(dispozitiv: torch.device) -> bool:
    return dispozitiv.type == "cuda"


def _tolerante(dispozitiv: torch.device) -> tuple[float, float]:
    return (1e-3, 1e-3) if _pe_gpu(dispozitiv) else (1e-4, 1e-4)


@contextlib.contextmanager
def _mediu_flex(fara_dynamo: bool = False):
    """Cât ține blocul: fără avertismentele și jurnalele lui PyTorch, cu opțiunile lui Dynamo
    implicite (oricum le-ar fi lăsat o celulă de mai sus, și fără `suppress_errors`), cu produsele de matrice float32 exacte
    (fără TF32) și cu `flex_attention` pe drumul lui obișnuit (nu pe cel de depanare, pe care îl
    poate porni o celulă). Cu `fara_dynamo`, chiar pe drumul de depanare: `flex_attention` necompilat
    rulează atunci funcția cursantului direct, prin `vmap`, fără s-o urmărească întâi Dynamo (aceleași
    valori, de câteva ori mai repede, fără să adune în cache-ul lui Dynamo câte o intrare pentru fiecare
    mască nouă). Avertismentul „flex_attention called without torch.compile()” e arătat de PyTorch o
    singură dată pe proces: dacă nu fusese arătat înainte, rămâne de arătat după."""
    modul = _flex()
    aratate = getattr(modul, "_WARNINGS_SHOWN", None)
    inainte = set(aratate) if isinstance(aratate, set) else None
    are_depanare = hasattr(modul, "_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG")  # lipsește din versiunile vechi
    depanare = getattr(modul, "_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG", False)
    precizie = torch.get_float32_matmul_precision()
    try:
        if are_depanare:
            modul._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = fara_dynamo
        torch.set_float32_matmul_precision("highest")
        # `suppress_errors=False`: o celulă de mai sus care l-a pornit ar transforma erorile compilării în rulări
        # eager, fără niciun mesaj, iar verificarea n-ar mai vedea ce compilează.
        with fara_jurnale_torch(), configuratie_dynamo_implicita(suppress_errors=False):
            yield
    finally:
        if are_depanare:
            modul._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = depanare
        torch.set_float32_matmul_precision(precizie)
        if inainte is not None:
            aratate.intersection_update(inainte)


_CE_PRIMESTE = {
    "mask_mod": ("patru", "(b, h, q_idx, kv_idx)", "un tensor bool (True = perechea e permisă)"),
    "score_mod": ("cinci", "(score, b, h, q_idx, kv_idx)", "scorul modificat"),
}


def _cere_mod(obiect, fel: str, cine: str) -> None:
    """Ce a întors funcția cursantului trebuie să fie un `mask_mod` (4 argumente) sau un `score_mod` (5)."""
    numar, argumente, intoarce = _CE_PRIMESTE[fel]
    n = 4 if fel == "mask_mod" else 5
    BlockMask = _flex().BlockMask
    if obiect is None:
        raise GresealaCursant(f"`{cine}` a întors None: ai uitat `return`? Trebuia să întorci funcția {fel}.")
    if isinstance(obiect, BlockMask):
        raise GresealaCursant(
            f"`{cine}` a întors un `BlockMask`, nu funcția {fel}: exercițiul cere chiar funcția "
            f"`{fel}{argumente}`, pe care verificarea o dă apoi lui `create_mask` și lui `create_block_mask`."
        )
    if isinstance(obiect, torch.Tensor):
        raise GresealaCursant(
            f"`{cine}` a întors un tensor de forma {tuple(obiect.shape)}, nu o funcție: un {fel} nu e un tabel "
            f"calculat dinainte, ci o funcție `{fel}{argumente}` care întoarce {intoarce}, din indici."
        )
    if not callable(obiect):
        raise GresealaCursant(f"`{cine}` a întors {type(obiect).__name__}, nu o funcție: trebuia funcția "
                              f"`{fel}{argumente}`, definită înăuntrul lui `{cine}` (cu `def` sau `lambda`).")
    try:
        semnatura = inspect.signature(obiect)
    except (TypeError, ValueError):
        return
    try:
        semnatura.bind(*range(n))
    except TypeError:
        raise GresealaCursant(
            f"Funcția întoarsă de `{cine}` are semnătura {semnatura}, dar un {fel} primește {numar} argumente, "
            f"`{argumente}`, chiar dacă nu le folosești pe toate: FlexAttention o cheamă exact așa."
        ) from None
    obligatorii = [p for p in semnatura.parameters.values()
                   if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    if len(obligatorii) not in (n, 0) and not any(p.kind == p.VAR_POSITIONAL for p in semnatura.parameters.values()):
        raise GresealaCursant(
            f"Funcția întoarsă de `{cine}` are {cu_substantiv(len(obligatorii), 'argument obligatoriu', 'argumente obligatorii')}, "
            f"{semnatura}: FlexAttention îi numără argumentele ca să știe ce fel de funcție e, iar un {fel} are exact "
            f"{numar}, `{argumente}`."
        )


# --- ce citește o funcție: tensori capturați, referința verificării ------------------------------

_MODULE_BIBLIOTECI = ("torch", "curs_compilare", "functools", "numpy", "builtins", "math", "operator")


def _din_biblioteca(obiect) -> bool:
    modul = getattr(obiect, "__module__", None) or ""
    return modul.split(".")[0] in _MODULE_BIBLIOTECI


def _coduri_imbricate(cod: types.CodeType):
    yield cod
    for constanta in cod.co_consts:
        if isinstance(constanta, types.CodeType):
            yield from _coduri_imbricate(constanta)


def _globale_citite(cod: types.CodeType) -> set[str]:
    """Numele globale citite de cod (`LOAD_GLOBAL`, `LOAD_NAME`), și în funcțiile definite în el; nu și
    numele de atribute (`x.shape`), care stau tot în `co_names`."""
    nume = set()
    for interior in _coduri_imbricate(cod):
        for instructiune in dis.get_instructions(interior):
            if instructiune.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(instructiune.argval, str):
                nume.add(instructiune.argval)
    return nume


def _elemente_lista(lista) -> int:
    """Câte numere are o listă (sau o listă de liste): un tabel scris cu liste Python."""
    total = 0
    for element in itertools.islice(lista, 100_000):
        total += len(element) if isinstance(element, (list, tuple)) else 1
    return total


def _ce_atinge(radacina, adancime: int = 8) -> tuple[list[tuple[str, tuple, int]], set]:
    """Ce poate citi `radacina` fără s-o chemi: tensorii (și tablourile NumPy, listele mari) din
    închiderile ei (*closures*), din valorile implicite ale argumentelor, din globalele pe care le
    numește codul ei, din `functools.partial`, din metodele legate și din atributele obiectelor
    chemabile, recursiv. Întoarce (tensorii: (ce e, forma, elemente), codurile funcțiilor atinse)."""
    tensori: list[tuple[str, tuple, int]] = []
    coduri: set = set()
    vazute: set[int] = set()
    BlockMask = _flex().BlockMask

    def viziteaza(obiect, adanc: int) -> None:
        if adanc < 0 or id(obiect) in vazute:
            return
        vazute.add(id(obiect))
        if isinstance(obiect, torch.Tensor):
            tensori.append(("tensor", tuple(obiect.shape), obiect.numel()))
            return
        if type(obiect).__module__ == "numpy" and hasattr(obiect, "shape") and hasattr(obiect, "size"):
            tensori.append(("tablou NumPy", tuple(obiect.shape), int(obiect.size)))
            return
        if isinstance(obiect, (types.ModuleType, type, str, bytes, int, float, complex, bool)) or obiect is None:
            return
        if isinstance(obiect, BlockMask):
            viziteaza(obiect.mask_mod, adanc - 1)
            return
        if isinstance(obiect, functools.partial):
            viziteaza(obiect.func, adanc - 1)
            for valoare in (*obiect.args, *obiect.keywords.values()):
                viziteaza(valoare, adanc - 1)
            return
        if isinstance(obiect, types.MethodType):
            viziteaza(obiect.__func__, adanc - 1)
            viziteaza(obiect.__self__, adanc - 1)
            return
        if isinstance(obiect, types.FunctionType):
            coduri.update(_coduri_imbricate(obiect.__code__))
            for celula in obiect.__closure__ or ():
                try:
                    viziteaza(celula.cell_contents, adanc - 1)
                except ValueError:  # o celulă încă goală
                    pass
            for valoare in (*(obiect.__defaults__ or ()), *(obiect.__kwdefaults__ or {}).values()):
                viziteaza(valoare, adanc - 1)
            globale = obiect.__globals__
            if str(globale.get("__name__", "")).split(".")[0] not in _MODULE_BIBLIOTECI:
                for nume in _globale_citite(obiect.__code__):
                    if nume in globale:
                        viziteaza(globale[nume], adanc - 1)
            viziteaza(getattr(obiect, "__wrapped__", None), adanc - 1)
            return
        if isinstance(obiect, (list, tuple, set, frozenset)):
            elemente = _elemente_lista(obiect)
            if elemente >= 1000:
                tensori.append(("listă Python", (len(obiect),), elemente))
            for element in itertools.islice(obiect, 1000):
                viziteaza(element, adanc - 1)
            return
        if isinstance(obiect, dict):
            for valoare in itertools.islice(obiect.values(), 1000):
                viziteaza(valoare, adanc - 1)
            return
        if _din_biblioteca(type(obiect)):
            return
        atribute = getattr(obiect, "__dict__", None)
        if isinstance(atribute, dict):
            viziteaza(atribute, adanc - 1)
        if callable(obiect):
            viziteaza(getattr(type(obiect), "__call__", None), adanc - 1)

    viziteaza(radacina, adancime)
    return tensori, coduri


def _prag_tabel(lungime: int) -> int:
    """De la câte elemente un tensor citit de mască e un tabel O(S²), nu date O(S)."""
    return max(lungime * lungime // 4, 4 * lungime + 1)


def _mesaj_tabel(fel: str, ce: str, forma: tuple, elemente: int, lungime: int, capturat: bool) -> str:
    cum = "ține în ea" if capturat else "citește"
    ce = {"tensor": "un tensor", "tablou NumPy": "un tablou NumPy", "listă Python": "o listă Python"}.get(ce, ce)
    forma_text = " × ".join(format_numar(d) for d in forma) if forma else "un scalar"
    exemplu = ("`(kv_idx <= q_idx) & (q_idx - kv_idx < fereastra) | (kv_idx < prefix)`" if fel == "ex1" else
               "`(ids[q_idx] == ids[kv_idx]) & (kv_idx <= q_idx)`, cu `ids` de S elemente")
    return (
        f"Masca ta {cum} {ce} de forma ({forma_text}), cu {cu_substantiv(elemente, 'element', 'elemente')}, "
        f"pentru o secvență de {cu_substantiv(lungime, 'jeton', 'jetoane')}: e o mască densă deghizată în mask_mod. "
        "Un mask_mod se calculează din indici, pentru fiecare pereche (q_idx, kv_idx), și nu are nevoie de un "
        f"tabel S × S: {exemplu}. Un tabel de S² elemente costă memorie pătratică în S (la 131 072 de jetoane, 16 GiB "
        "de valori bool), exact ce FlexAttention evită, iar kernel-ul ar trebui să-l citească din memorie la "
        "fiecare bloc."
    )


def _fara_tabel_capturat(mod, lungime: int, fel: str) -> None:
    """Respinge o funcție care ține în închideri, în valorile implicite sau în globale un tabel O(S²)."""
    tensori, _ = _ce_atinge(mod)
    prag = _prag_tabel(lungime)
    for ce, forma, elemente in tensori:
        if elemente >= prag:
            raise GresealaCursant(_mesaj_tabel(fel, ce, forma, elemente, lungime, capturat=True))


def _e_batched(tensor: torch.Tensor) -> bool:
    functie = getattr(getattr(torch._C, "_functorch", None), "is_batchedtensor", None)
    try:
        return bool(functie(tensor)) if functie is not None else False
    except Exception:
        return False


def _tensori_din(obiect, adanc: int = 3):
    if isinstance(obiect, torch.Tensor):
        yield obiect
    elif adanc > 0 and isinstance(obiect, (list, tuple)):
        for element in obiect:
            yield from _tensori_din(element, adanc - 1)
    elif adanc > 0 and isinstance(obiect, dict):
        for element in obiect.values():
            yield from _tensori_din(element, adanc - 1)


class _CititorTabele(torch.overrides.TorchFunctionMode):
    """Cât e activ, ține minte primul tensor mare (cel puțin `prag` elemente) pe care îl citește o
    operație torch: așa se vede un tabel citit de mască, oricum ar ajunge la el (închidere, globală,
    atributul unui modul, un tensor construit chiar în mask_mod)."""

    def __init__(self, prag: int):
        super().__init__()
        self.prag = prag
        self.gasit: tuple | None = None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.gasit is None:
            for tensor in _tensori_din((args, kwargs)):
                try:
                    elemente = tensor.numel()
                except Exception:
                    continue
                if elemente >= self.prag and not _e_batched(tensor):
                    self.gasit = (tuple(tensor.shape), elemente)
                    break
        return func(*args, **kwargs)


# --- erorile din urmărirea cu vmap / Dynamo, explicate ------------------------------------------

_INDICI = ("În {ce}, argumentele nu sunt numere, ci tensori: FlexAttention îți cheamă funcția o singură dată "
           "pentru toate pozițiile deodată (prin `vmap`, sau urmărită de Dynamo)")

#: Pentru fiecare fel de funcție: o condiție scrisă pe tensori și o valoare aleasă cu `torch.where`.
_EXEMPLE = {
    "mask_mod": ("`(kv_idx <= q_idx) & (q_idx - kv_idx < fereastra)`", "`torch.where(kv_idx < prefix, True, …)`"),
    "score_mod": ("`(score > 0) & (kv_idx <= q_idx)`", "`torch.where(score > limita, limita, score)`"),
    "mask_mod_documente": ("`(ids[q_idx] == ids[kv_idx]) & (kv_idx <= q_idx)`",
                           "`torch.where(ids[q_idx] == ids[kv_idx], kv_idx <= q_idx, False)`"),
}


def _nume_fel(ce: str) -> str:
    """„mask_mod” sau „score_mod” (cheia din `_EXEMPLE` poate avea un sufix: exemplul exercițiului)."""
    return "score_mod" if ce.startswith("score_mod") else "mask_mod"


def _control_flux(p, ce: str) -> str:
    conditie, alegere = _EXEMPLE.get(ce, _EXEMPLE["mask_mod"])
    return (f"ai folosit un tensor într-un `if`, `and`, `or`, `not` sau `while`. {_INDICI.format(ce=_nume_fel(ce))}, deci o "
            f"condiție nu are o singură valoare de adevăr. Combină condițiile pe tensori cu `&`, `|` și `~`, cu "
            f"paranteze ({conditie}), și alege între valori cu `torch.where` ({alegere}), nu cu `if`")


def _numar_python(p, ce: str) -> str:
    return ("ai cerut un număr Python dintr-un tensor (`.item()`, `float()`, `int()` sau o funcție din `math`, ca "
            f"`math.tanh`, care le cheamă). {_INDICI.format(ce=_nume_fel(ce))}, deci tensorul nu are o singură valoare. Folosește "
            "operațiile lui torch, care lucrează pe tot tensorul: `torch.tanh`, `torch.where`, `&`, `|`")


def _intoarce_netensor(p, ce: str) -> str:
    """Mesajul întreg (fără „a aruncat”: eroarea e a lui `vmap`, nu a codului tău) pentru o funcție care
    întoarce altceva decât un tensor."""
    tip = p[1]
    descriere = {"bool": "un `True` sau `False` Python (aceeași valoare pentru toate pozițiile)",
                 "NoneType": "None (ai uitat `return`?)", "float": "un număr Python (float)",
                 "int": "un număr Python (int)"}.get(tip, f"un obiect {tip}")
    if _nume_fel(ce) == "score_mod":
        return (f"Funcția ta score_mod întoarce {descriere}, nu un tensor: trebuie să întoarcă scorul modificat, un "
                "tensor calculat din `score` (de exemplu `score * 2`), nu o constantă.")
    return (f"Masca ta (mask_mod) întoarce {descriere}, nu un tensor: trebuie să întoarcă o condiție pe tensori, "
            "calculată din indici (de exemplu `kv_idx <= q_idx`). Atenție la `and`/`or` cu un număr Python: "
            "`(prefix > 0) and …` dă uneori un bool Python; scrie condițiile pe tensori, cu `&` și `|`.")


def _argumente_numarate(p, ce: str) -> str:
    return (f"FlexAttention numără argumentele poziționale ale funcției (4 pentru un mask_mod, 5 pentru un "
            f"score_mod), iar a ta are {p[1]}")


#: (tipar, explicație, mesaj întreg): la un mesaj întreg, explicația e tot mesajul.
_URMARIRE = (
    (re.compile(r"data-dependent control flow|Data-dependent branching|Boolean value of Tensor with more than one",
                re.I), _control_flux, False),
    (re.compile(r"calling \.item\(\)|Could not guard on data-dependent|data-dependent expression|"
                r"Data dependent operator|aten\._local_scalar_dense", re.I), _numar_python, False),
    (re.compile(r"must only return Tensors, got type <class '(\w+)'>"), _intoarce_netensor, True),
    (re.compile(r"body's output must consist of tensors or ints/bools only but got <class '(\w+)'>"),
     _intoarce_netensor, True),
    (re.compile(r"Expected 4 or 5 positional args, got (\d+)"), _argumente_numarate, False),
)


def _explica_urmarirea(greseala: GresealaCursant, ce: str, cine: str = "Codul tău") -> GresealaCursant:
    """O eroare a funcției cursantului chemate de FlexAttention (prin `apeleaza`), explicată pentru
    greșelile tipice ale unui mask_mod sau score_mod: `if`/`and`/`or` pe tensori, `.item()` și `math`,
    o valoare întoarsă care nu e tensor. Altfel, explicația obișnuită a lui `apeleaza`."""
    eroare = greseala.exceptie
    if eroare is None:
        return greseala
    texte = []
    interioara = eroare
    while interioara is not None and len(texte) < 6:
        texte.append(str(interioara))
        interioara = interioara.__cause__ or interioara.__context__
    text = "\n".join(texte)
    for tipar, explicatie, intreg in _URMARIRE:
        potrivire = tipar.search(text)
        if not potrivire:
            continue
        if intreg:
            noua = GresealaCursant(explicatie(potrivire, ce))
        else:
            linie = linia_cursantului(eroare)
            unde = (f" la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else
                    f" la linia {linie[0]}" if linie else "")
            noua = GresealaCursant(f"{cine} a aruncat {type(eroare).__name__}{unde}: {explicatie(potrivire, ce)}."
                                   f"{cu_originalul(traduce_exceptie(eroare))}")
        noua.exceptie = eroare
        return noua
    return greseala


def _cheama_mod(functie, *argumente, ce: str, cine: str, interzise: dict | None = None, fara_dynamo: bool = False,
                **numite):
    """O funcție a lui FlexAttention (`create_mask`, `create_block_mask`, `flex_attention`) care
    cheamă codul cursantului: prin `apeleaza`, cu erorile de urmărire explicate."""
    try:
        with _mediu_flex(fara_dynamo):
            return apeleaza(functie, *argumente, limita_s=LIMITA_APEL_S, interzise=interzise, ce=cine, **numite)
    except GresealaCursant as greseala:
        raise _explica_urmarirea(greseala, ce) from None


def _prin_flex(eroare: BaseException | None) -> bool:
    """Adevărat dacă excepția a trecut prin FlexAttention, `vmap` sau Dynamo (o eroare a măștii, nu a
    funcției din jurul ei)."""
    while eroare is not None:
        tb = eroare.__traceback__
        while tb is not None:
            fisier = tb.tb_frame.f_code.co_filename.replace("\\", "/")
            if any(parte in fisier for parte in ("attention/flex_attention", "/_functorch/", "/_dynamo/")):
                return True
            tb = tb.tb_next
        eroare = eroare.__cause__ or (None if eroare.__suppress_context__ else eroare.__context__)
    return False


def _fara_cuda_implicit(eroare: BaseException | None, dispozitiv) -> str | None:
    """Explicația pentru o eroare din funcția ta care vine din dispozitiv: `create_block_mask` fără
    `device=` (implicit „cuda”) pe o mașină fără GPU, sau tensori ai măștii pe alt dispozitiv decât cel
    primit; None altfel."""
    text = ""
    while eroare is not None and len(text) < 4000:
        text += f" {eroare}"
        eroare = eroare.__cause__ or eroare.__context__
    if dispozitiv.type == "cpu" and re.search(r"NVIDIA driver|not compiled with CUDA|CUDA driver|no CUDA GPUs|"
                                               r"cuda(?:Get|Malloc)|device=cuda", text, re.I):
        return ("Funcția ta a cerut GPU-ul (CUDA), dar verificarea rulează pe procesor: `create_block_mask` pune masca, "
                "implicit, pe `\"cuda\"`. Dă-i dispozitivul primit, `create_block_mask(..., device=dispozitiv)`, și pune "
                "pe el și tensorii tăi (`torch.arange(..., device=dispozitiv)`).")
    if re.search(r"same device|different device|device mismatch|indices should be either on cpu", text, re.I):
        return (f"Tensorii măștii tale sunt pe alt dispozitiv decât cel primit ({dispozitiv}): pune pe `dispozitiv` "
                "tot ce capturează mask_mod-ul (de exemplu, `torch.arange(len(lungimi), device=dispozitiv)` și "
                "`torch.tensor(lungimi, device=dispozitiv)`) și dă-l și lui `create_block_mask(..., device=dispozitiv)`.")
    return None


def _apeleaza_cursantul(functie, *argumente, ce: str, interzise: dict | None, fel: str,
                        limita_s: float | None = None, dispozitiv=None):
    """Funcția ta (`fereastra_cu_prefix`, `softcap`, `masca_documente`), prin `apeleaza`, cu limita de timp
    `limita_s` (implicit `LIMITA_APEL_S`); dacă ea cheamă FlexAttention (de exemplu `create_block_mask`),
    erorile de urmărire ale măștii sunt explicate, iar cele de dispozitiv spun ce să-i dai. Funcția ta nu
    are voie să schimbe configurația globală a compilatorului (de exemplu `suppress_errors`, care ar ascunde
    erorile compilării): o schimbare e pusă la loc și respinsă."""
    inainte = configuratia_compilatorului()
    try:
        with fara_jurnale_torch():
            rezultat = apeleaza(functie, *argumente, limita_s=limita_s or LIMITA_APEL_S, interzise=interzise, ce=ce)
    except GresealaCursant as greseala:
        _pune_configuratia(inainte, schimbari_configuratie(inainte))
        dispozitivul_gresit = _fara_cuda_implicit(greseala.exceptie, dispozitiv) if dispozitiv is not None else None
        if dispozitivul_gresit:
            linie = linia_cursantului(greseala.exceptie)
            unde = f" (la linia {linie[0]}, `{linie[1]}`)" if linie and linie[1] else ""
            raise GresealaCursant(f"{dispozitivul_gresit[:-1]}{unde}."
                                  f"{cu_originalul(traduce_exceptie(greseala.exceptie))}") from None
        if not _prin_flex(greseala.exceptie):
            raise
        raise _explica_urmarirea(greseala, fel) from None
    schimbate = schimbari_configuratie(inainte)
    if schimbate:
        _pune_configuratia(inainte, schimbate)
        raise GresealaCursant(
            f"{ce[0].upper()}{ce[1:]} schimbă configurația globală a compilatorului "
            f"({', '.join(f'`{n}`' for n in schimbate[:3])}). Schimbarea ar rămâne în tot notebook-ul, după funcția ta, "
            "și ar ascunde ce face compilarea: `suppress_errors`, de exemplu, transformă o eroare a compilării într-o "
            "rulare în modul eager, fără să spună. Am pus configurația la loc; scoate schimbarea din funcție."
        )
    return rezultat


def _pune_configuratia(inainte: dict, schimbate: list[str]) -> None:
    """Pune la loc opțiunile compilatorului schimbate de codul tău (nume întregi, din `schimbari_configuratie`)."""
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for nume in schimbate:
            modul, _, cheie = nume.rpartition(".")
            with contextlib.suppress(Exception):
                setattr(importlib.import_module(modul), cheie, inainte[modul][cheie])


#: Câte loturi (`b`) și câte capete (`h`) primesc măștile și atenția în verificări: mai multe de unul, ca o
#: funcție care depinde de lot sau de cap (nu doar de poziții) să se vadă.
LOTURI_PROBA = 2
CAPETE_PROBA = 3


def _masca_densa(functie, lungime: int, dispozitiv, fel: str, interzise: dict | None = None) -> torch.Tensor:
    """Masca densă (S × S, bool, pe procesor) a unui mask_mod, cu `create_mask` pe `LOTURI_PROBA` loturi și
    `CAPETE_PROBA` capete, urmărind tabelele citite. Masca cerută e aceeași pentru orice lot și orice cap: una
    care depinde de `b` sau de `h` e respinsă aici."""
    cititor = _CititorTabele(_prag_tabel(lungime))

    def mask_mod(b, h, q_idx, kv_idx):  # numele apare în mesajele lui vmap
        with cititor:
            return functie(b, h, q_idx, kv_idx)

    forma = (LOTURI_PROBA, CAPETE_PROBA, lungime, lungime)
    try:
        masca = _cheama_mod(_flex().create_mask, mask_mod, LOTURI_PROBA, CAPETE_PROBA, lungime, lungime,
                            device=dispozitiv, ce="mask_mod_documente" if fel == "ex3" else "mask_mod",
                            cine="masca ta, pe toate perechile de poziții,", interzise=interzise)
    except GresealaCursant:
        if cititor.gasit is None:
            raise
        masca = None  # masca a citit un tabel înainte să cadă (de exemplu, un indice după capătul lui): asta e cauza
    if cititor.gasit is not None:
        forma_tabel, elemente = cititor.gasit
        raise GresealaCursant(_mesaj_tabel(fel, "tensor", forma_tabel, elemente, lungime, capturat=False))
    if not isinstance(masca, torch.Tensor):  # pragma: no cover - create_mask întoarce mereu un tensor
        raise GresealaCursant(f"Masca ta a dat {type(masca).__name__}, nu un tensor.")
    if masca.dim() > 4 or tuple(masca.shape[:4]) != forma:
        extra = tuple(masca.shape[4:])
        raise GresealaCursant(
            f"Pentru o singură pereche (q_idx, kv_idx), masca ta întoarce un tensor de forma {extra}, nu o "
            "singură valoare: masca întreagă iese de forma "
            f"{tuple(masca.shape)} în loc de {forma}. Întoarce o singură condiție, de exemplu "
            "`kv_idx <= q_idx`, fără să construiești tensori noi."
        )
    if masca.dtype != torch.bool:
        raise GresealaCursant(
            f"Masca ta întoarce valori {masca.dtype}, nu bool: FlexAttention cere True (perechea e permisă) "
            "sau False. Scrie condiția cu comparații (`<=`, `<`, `==`) combinate cu `&` și `|`, fără `.float()`, "
            "`.int()` sau aritmetică pe rezultat."
        )
    masca = masca.cpu()
    diferite = (masca != masca[:1, :1]).flatten(2).sum(-1)
    if bool(diferite.any()):
        b, h = (int(i) for i in diferite.nonzero()[0])
        q, kv = (int(i) for i in (masca[b, h] != masca[0, 0]).nonzero()[0])
        raise GresealaCursant(
            f"Masca ta depinde de lot (`b`) sau de cap (`h`): pentru b = {b}, h = {h} dă altceva decât pentru b = 0, "
            f"h = 0, în {cu_substantiv(int(diferite[b, h]), 'pereche', 'perechi')} din {format_numar(lungime * lungime)} "
            f"(de exemplu, la q_idx = {q}, kv_idx = {kv}, S = {lungime}). Verificarea o încearcă pe "
            f"{LOTURI_PROBA} loturi și {CAPETE_PROBA} capete: masca cerută e aceeași pentru orice lot și orice cap, deci "
            "se calculează doar din `q_idx` și `kv_idx`."
        )
    return masca[0, 0]


def _masca_din_tabel(tabel: torch.Tensor):
    """Un mask_mod care citește masca densă a cazului (S × S, calculată de verificare din definiția
    exercițiului): cu el, `create_block_mask` dă raritatea de referință. Verificarea nu ține altă
    funcție de referință (nimic de chemat din codul tău, în afară de un tabel, pe care o mască a ta l-ar
    citi și ar fi respinsă)."""

    def masca_din_tabel(b, h, q_idx, kv_idx):
        return tabel[q_idx, kv_idx]

    return masca_din_tabel


def _sirul(valori: list[int], cate: int = 8) -> str:
    text = ", ".join(str(v) for v in valori[:cate])
    return f"[{text}{', …' if len(valori) > cate else ''}]"


def _procent(valoare: float) -> str:
    return format_procent(valoare / 100, 1)


def _raritatea(block_mask) -> float:
    try:
        return float(block_mask.sparsity())
    except Exception as eroare:
        raise GresealaCursant("Nu am putut calcula raritatea (sparsity) BlockMask-ului tău: "
                              + explica_exceptie(eroare, cine="`sparsity()`")) from None


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: fereastră glisantă cu prefix
# ---------------------------------------------------------------------------------------------


def _densa_1(lungime: int, fereastra: int, prefix: int) -> torch.Tensor:
    q = torch.arange(lungime)[:, None]
    kv = torch.arange(lungime)[None, :]
    return ((kv <= q) & (q - kv < fereastra)) | (kv < prefix)


#: Lungimile cazului lung din exercițiile 1 și 2 (procesor, GPU): multe blocuri de 128, ca o mască sau o
#: modificare a scorului greșită doar departe de diagonală (la distanțe mari, după câteva blocuri) să se vadă.
LUNGIME_LUNGA = {"cpu": (1025, 1400), "cuda": (2305, 2800)}


def _lungime_nemultiplu(rng, mic: int, mare: int) -> int:
    """O lungime între `mic` și `mare` care nu e multiplu de 128 (ultimul bloc e parțial)."""
    while True:
        s = rng.randint(mic, mare)
        if s % 128:
            return s


def _cazuri_1(rng, pe_gpu: bool) -> list[tuple[int, int, int]]:
    """(S, fereastra, prefix): prefixul 0, fereastra 1, un prefix cel puțin cât fereastra, unul oarecare și
    un caz lung, cu fereastra și prefixul de câteva blocuri; S nu e multiplu de 128."""
    mic, mare = (130, 600) if not pe_gpu else (600, 2000)

    def lungime():
        return _lungime_nemultiplu(rng, mic, mare)

    cazuri = []
    s = lungime()
    cazuri.append((s, rng.randint(16, s // 3), 0))
    s = lungime()
    cazuri.append((s, 1, rng.randint(2, s // 4)))
    s = lungime()
    f = rng.randint(4, max(5, s // 8))
    cazuri.append((s, f, rng.randint(f, min(s // 2, f + 100))))
    s = lungime()
    f = rng.randint(20, s // 3)
    cazuri.append((s, f, rng.randint(1, f - 1)))
    s = _lungime_nemultiplu(rng, *LUNGIME_LUNGA["cuda" if pe_gpu else "cpu"])
    cazuri.append((s, rng.randint(257, s // 3), rng.randint(129, s // 4)))
    rng.shuffle(cazuri)
    return cazuri


def _potrivire_1(masca: torch.Tensor) -> tuple[int, int] | None:
    """(fereastra, prefix) pentru care masca e exact o fereastră cu prefix, sau None."""
    lungime = masca.shape[0]
    ultimul = masca[-1].tolist()
    prefix = next((i for i, v in enumerate(ultimul) if not v), lungime)
    fereastra = next((i for i, v in enumerate(reversed(ultimul)) if not v), lungime)
    candidati = {(fereastra, prefix), (fereastra, 0), (max(fereastra, 1), prefix)}
    for f, p in candidati:
        if torch.equal(masca, _densa_1(lungime, f, p)):
            return f, p
    return None


def _pozitia_gresita_1(masca, asteptat, fereastra, prefix) -> str:
    gresite = (masca != asteptat).nonzero().tolist()
    q, kv = gresite[0]
    if masca[q, kv]:
        if kv > q:
            motiv = f"e după el și nu e în prefix (prefixul are {cu_substantiv(prefix, 'jeton', 'jetoane')})"
        else:
            motiv = (f"e la distanța {q - kv}, în afara ferestrei (cel mult {fereastra - 1} în urmă), și nu e în "
                     "prefix")
        fraza = f"jetonul {q} vede jetonul {kv}, dar n-ar trebui: {motiv}"
    else:
        motiv = (f"e în prefix (kv_idx < {prefix}), pe care îl vede oricine" if kv < prefix else
                 f"e în fereastra lui (distanța {q - kv} < {fereastra})")
        fraza = f"jetonul {q} nu vede jetonul {kv}, deși trebuia: {motiv}"
    return (f"{fraza[0].upper()}{fraza[1:]}. În total, {cu_substantiv(len(gresite), 'pereche greșită', 'perechi greșite')} "
            f"din {format_numar(asteptat.numel())}.")


def _diagnostic_1(masca: torch.Tensor, asteptat: torch.Tensor, lungime: int, fereastra: int, prefix: int) -> str:
    caz = f"(S = {lungime}, fereastra = {fereastra}, prefix = {prefix})"
    q = torch.arange(lungime)[:, None]
    kv = torch.arange(lungime)[None, :]
    if not masca.any():
        return f"Masca ta nu permite nicio pereche {caz}: fiecare rând al atenției ar fi gol."
    if masca.all():
        return (f"Masca ta permite toate perechile {caz}: fiecare jeton vede tot, și viitorul. Trebuie doar "
                "`(kv_idx <= q_idx) & (q_idx - kv_idx < fereastra)`, plus prefixul: `| (kv_idx < prefix)`.")
    if torch.equal(masca, asteptat.T):
        return (f"Masca ta e oglindită {caz}: ai inversat `q_idx` și `kv_idx`. `q_idx` e jetonul care întreabă (rândul), "
                "`kv_idx` jetonul la care se uită (coloana); cauzal înseamnă `kv_idx <= q_idx`.")
    if torch.equal(masca, (kv <= q) | (kv < prefix)):
        return (f"Masca ta ignoră fereastra {caz}: fiecare jeton vede tot trecutul, nu doar ultimele {fereastra}. "
                "Adaugă `& (q_idx - kv_idx < fereastra)` la condiția cauzală (înainte de `| (kv_idx < prefix)`).")
    if torch.equal(masca, kv <= q):
        return (f"Masca ta e doar cauzală {caz}: fiecare jeton vede tot trecutul. Lipsesc și fereastra "
                "(`q_idx - kv_idx < fereastra`), și prefixul (`| (kv_idx < prefix)`).")
    fara_cauzal = ((q - kv).abs() < fereastra) | (kv < prefix)
    if torch.equal(masca, fara_cauzal):
        return (f"Fereastra ta e de ambele părți {caz}: un jeton vede și jetoanele de după el (viitorul). Atenția e "
                "cauzală: adaugă `kv_idx <= q_idx`.")
    gasit = _potrivire_1(masca)
    if gasit is not None:
        f, p = gasit
        if f == fereastra and p == 0 and prefix > 0:
            return (f"Masca ta ignoră prefixul {caz}: e doar fereastra cauzală, iar primele "
                    f"{cu_substantiv(prefix, 'jeton', 'jetoane')} nu sunt văzute de toate celelalte. Adaugă `| (kv_idx < prefix)`.")
        if f == fereastra and abs(p - prefix) == 1:
            return (f"Prefixul tău are {cu_substantiv(p, 'jeton', 'jetoane')} în loc de {prefix} {caz}: o greșeală "
                    f"de o poziție. Prefixul e format din pozițiile 0, 1, …, prefix − 1, adică `kv_idx < prefix`"
                    + (" (nu `<=`)." if p > prefix else "."))
        if p == prefix and abs(f - fereastra) == 1:
            return (f"Fereastra ta are {cu_substantiv(f, 'jeton', 'jetoane')} în loc de {fereastra} {caz}: o greșeală "
                    "de o poziție. Fereastra cuprinde jetonul însuși și pe cele dinaintea lui, cât timp "
                    "`q_idx - kv_idx < fereastra`" + (" (nu `<=`)." if f > fereastra else ".")
                    + " Cu fereastra 1, un jeton se vede doar pe el.")
        if abs(f - fereastra) <= 1 and abs(p - prefix) <= 1:
            return (f"Masca ta are două greșeli de câte o poziție {caz}: fereastra are {cu_substantiv(f, 'jeton', 'jetoane')} în loc "
                    f"de {fereastra} și prefixul {cu_substantiv(p, 'jeton', 'jetoane')} în loc de {prefix}. Fereastra "
                    "cuprinde jetonul însuși și pe cele dinaintea lui cât timp `q_idx - kv_idx < fereastra`, iar prefixul "
                    "e format din pozițiile 0, 1, …, prefix − 1, adică `kv_idx < prefix`"
                    + (" (amândouă cu `<`, nu `<=`)." if f > fereastra and p > prefix else "."))
        parti = []
        if f != fereastra:
            parti.append(f"o fereastră de {f} în loc de {fereastra}")
        if p != prefix:
            parti.append(f"un prefix de {p} în loc de {prefix}")
        return (f"Masca ta are {' și '.join(parti)} {caz}: nu folosește valorile primite ca parametri (o valoare scrisă "
                "de mână?). Verificarea alege alt S, altă fereastră și alt prefix la fiecare rulare: folosește chiar "
                "argumentele `fereastra` și `prefix` ale funcției.")
    return f"Masca ta diferă de fereastra cu prefix {caz}. {_pozitia_gresita_1(masca, asteptat, fereastra, prefix)}"


#: Până unde merg indicii cu care verificarea încearcă direct masca din exercițiul 1 (și score_mod-ul din
#: exercițiul 2): mult după secvențele pe care le construiește, ca o greșeală departe de diagonală să se vadă.
INDICE_SONDA = 16384


def _sonda_departe_1(mask_mod, fereastra: int, prefix: int, rng, dispozitiv, interzise) -> str | None:
    """Masca ta încercată direct (cu `vmap`, ca FlexAttention), în puncte alese la întâmplare până la
    `INDICE_SONDA`, cu loturi și capete diferite, plus marginile ferestrei și ale prefixului departe de
    începutul secvenței. Masca din exercițiul 1 nu depinde de S, deci trebuie să fie bună oriunde.
    Întoarce mesajul pentru primul punct greșit, sau None."""
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    n = 4096
    q = torch.randint(0, INDICE_SONDA, (n,), generator=generator)
    kv = torch.minimum(q, torch.randint(0, INDICE_SONDA, (n,), generator=generator))
    departe = torch.arange(INDICE_SONDA - 512, INDICE_SONDA)
    margini_q = torch.cat([departe, departe, departe, departe])
    margini_kv = torch.cat([departe - fereastra + 1, departe - fereastra, torch.full_like(departe, max(prefix - 1, 0)),
                            torch.full_like(departe, prefix)]).clamp(min=0)
    q, kv = torch.cat([q, margini_q]), torch.cat([kv, margini_kv])
    b = torch.randint(0, 8, q.shape, generator=generator)
    h = torch.randint(0, 8, q.shape, generator=generator)
    asteptat = ((kv <= q) & (q - kv < fereastra)) | (kv < prefix)
    argumente = [t.to(torch.int32).to(dispozitiv) for t in (b, h, q, kv)]
    try:
        from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex
    except Exception:  # pragma: no cover - depinde de versiune
        TransformGetItemToIndex = contextlib.nullcontext

    def pe_toate():
        with TransformGetItemToIndex():
            return torch.vmap(mask_mod, in_dims=(0, 0, 0, 0))(*argumente)

    obtinut = _cheama_mod(pe_toate, ce="mask_mod", cine="masca ta, în puncte departe de diagonală,",
                          interzise=interzise)
    if not isinstance(obtinut, torch.Tensor) or tuple(obtinut.shape) != tuple(q.shape):
        return None  # forma greșită e explicată de `_masca_densa`
    gresite = (obtinut.cpu().bool() != asteptat).nonzero()
    if not gresite.numel():
        return None
    i = int(gresite[0])
    qi, kvi, vede = int(q[i]), int(kv[i]), bool(obtinut[i])
    motiv = ("e în prefix (kv_idx < prefix)" if kvi < prefix else
             f"e în fereastra lui (distanța {qi - kvi} < {fereastra})" if qi - kvi < fereastra else
             f"e la distanța {qi - kvi}, în afara ferestrei, și nu e în prefix")
    return (
        f"Masca ta e bună pe secvențele construite de verificare, dar greșește departe de începutul lor (fereastra = "
        f"{fereastra}, prefix = {prefix}): jetonul {qi} {'vede' if vede else 'nu vede'} jetonul {kvi}, deși "
        f"{'nu trebuia' if vede else 'trebuia'}: {motiv}. Verificarea încearcă masca direct, cu indici până la "
        f"{format_numar(INDICE_SONDA)}: un mask_mod nu știe lungimea secvenței, deci regula lui trebuie să fie aceeași "
        "oriunde, fără praguri scrise de mână."
    )


def exercitiul_1(fereastra_cu_prefix) -> Rezultat:
    """Verifică `fereastra_cu_prefix(fereastra, prefix)`, care întoarce un `mask_mod(b, h, q_idx, kv_idx)`:
    perechea e permisă dacă `(kv_idx <= q_idx și q_idx - kv_idx < fereastra) sau kv_idx < prefix`.
    Pe cinci cazuri alese la întâmplare (prefixul 0, fereastra 1, un prefix cel puțin cât fereastra, un
    caz lung, cu fereastra și prefixul de câteva blocuri; S care nu e multiplu de 128), masca densă din
    `create_mask`, pe `LOTURI_PROBA` loturi și `CAPETE_PROBA` capete, trebuie să fie exact cea cerută, la
    fel pentru fiecare lot și cap, iar `create_block_mask` să sară peste tot atâtea blocuri cât masca
    cerută. Masca se calculează din indici: un tabel S × S citit de ea e respins."""

    def corp():
        cere_functie(fereastra_cu_prefix, "fereastra_cu_prefix(fereastra, prefix)", 2)
        rng = generator_aleator()
        dispozitiv = dispozitivul()
        flex = _flex()
        cazuri = _cazuri_1(rng, _pe_gpu(dispozitiv))
        interzise = None
        raritati = []
        for lungime, fereastra, prefix in cazuri:
            mask_mod = _apeleaza_cursantul(fereastra_cu_prefix, fereastra, prefix, interzise=interzise,
                                           ce="funcția ta `fereastra_cu_prefix`", fel="mask_mod", dispozitiv=dispozitiv)
            _cere_mod(mask_mod, "mask_mod", "fereastra_cu_prefix")
            _fara_tabel_capturat(mask_mod, lungime, "ex1")
            masca = _masca_densa(mask_mod, lungime, dispozitiv, "ex1", interzise)
            asteptat = _densa_1(lungime, fereastra, prefix)
            if not torch.equal(masca, asteptat):
                raise GresealaCursant(_diagnostic_1(masca, asteptat, lungime, fereastra, prefix))
            departe = _sonda_departe_1(mask_mod, fereastra, prefix, rng, dispozitiv, interzise)
            if departe:
                raise GresealaCursant(departe)
            pe_blocuri = _cheama_mod(flex.create_block_mask, mask_mod, None, None, lungime, lungime,
                                     device=dispozitiv, ce="mask_mod",
                                     cine="`create_block_mask` cu masca ta", interzise=interzise)
            with _mediu_flex():
                referinta = flex.create_block_mask(_masca_din_tabel(asteptat.to(dispozitiv)), None, None, lungime,
                                                   lungime, device=dispozitiv)
            a_ta, a_referintei = _raritatea(pe_blocuri), _raritatea(referinta)
            if not math.isclose(a_ta, a_referintei, abs_tol=1e-6):
                raise GresealaCursant(
                    f"Masca densă e corectă, dar `create_block_mask` cu masca ta sare peste {_procent(a_ta)} din blocuri, "
                    f"iar cu fereastra cu prefix peste {_procent(a_referintei)} (S = {lungime}, fereastra = {fereastra}, "
                    f"prefix = {prefix}): masca ta nu dă aceeași valoare pentru aceeași pereche de fiecare dată (depinde "
                    "de `b`, `h` sau de altceva decât pozițiile?)."
                )
            raritati.append((lungime, fereastra, prefix, a_ta))
        lungime, fereastra, prefix, raritate = max(raritati, key=lambda r: r[3])
        descriere = "; ".join(f"S = {s}, fereastra {f}, prefix {p}" for s, f, p, _ in raritati)
        return (
            f"Masca ta dă exact fereastra cu prefix pe {cu_substantiv(len(cazuri), 'caz', 'cazuri')} alese la "
            f"întâmplare ({descriere}), la fel pentru fiecare lot și cap, calculată din indici, fără vreun tabel. "
            f"Pe S = {lungime}, cu fereastra {fereastra} și prefixul {prefix}, `create_block_mask` sare peste {_procent(raritate)} din blocurile "
            "de 128 × 128: kernel-ul nici nu le citește."
        )

    return verificare("Exercițiul 1", corp, limita_s=_LIMITA_1_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: soft-capping cu tanh
# ---------------------------------------------------------------------------------------------


def _limite_2(rng) -> list[float]:
    jos, sus = LIMITE_SOFTCAP
    mijloc = (jos * sus) ** 0.5
    return [round(rng.uniform(jos, mijloc), 2), round(rng.uniform(mijloc, sus), 2), round(rng.uniform(jos, sus), 3)]


def _scoruri_proba(limita: float, dispozitiv) -> torch.Tensor:
    """Scorurile pe care verificarea încearcă direct score_mod-ul tău: în jurul lui 0, până la 8 × limita,
    și câteva uriașe (acolo orice tanh e saturat)."""
    return torch.cat([torch.linspace(-8 * limita, 8 * limita, 161), torch.tensor([-1e4, -1e3, 1e3, 1e4])]).to(dispozitiv)


def _incearca_score_mod(score_mod, scoruri: torch.Tensor, interzise: dict | None, pozitii: dict | None = None
                        ) -> torch.Tensor:
    """score_mod-ul tău pe fiecare scor din `scoruri` (cu `vmap`, ca FlexAttention), la pozițiile `pozitii`
    ({"b", "h", "q_idx", "kv_idx"}: câte un tensor int32 cu un element pentru fiecare scor; implicit, toate 0)."""
    n = scoruri.numel()
    dispozitiv = scoruri.device
    zero = torch.zeros(n, dtype=torch.int32, device=dispozitiv)
    pozitii = pozitii or {}
    argumente = [pozitii.get(nume, zero) for nume in ("b", "h", "q_idx", "kv_idx")]
    try:
        from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex
    except Exception:  # pragma: no cover - depinde de versiune
        TransformGetItemToIndex = contextlib.nullcontext

    def pe_toate():
        with TransformGetItemToIndex():
            return torch.vmap(score_mod, in_dims=(0, 0, 0, 0, 0))(scoruri, *argumente)

    iesire = _cheama_mod(pe_toate, ce="score_mod", cine="funcția ta score_mod, pe o serie de scoruri,", interzise=interzise)
    if not isinstance(iesire, torch.Tensor):  # pragma: no cover - vmap întoarce tensori
        raise GresealaCursant(f"Funcția ta score_mod a dat {type(iesire).__name__}, nu un tensor.")
    if tuple(iesire.shape) != (n,):
        raise GresealaCursant(
            f"Pentru un singur scor, funcția ta score_mod întoarce un tensor de forma {tuple(iesire.shape[1:])}, nu un "
            "singur număr: întoarce scorul modificat, de aceeași formă ca `score` (o operație pe el, fără "
            "`torch.stack`, `unsqueeze` sau tensori noi)."
        )
    if iesire.dtype != scoruri.dtype:
        raise GresealaCursant(
            f"Scorurile tale ies {iesire.dtype}, iar cele primite sunt {scoruri.dtype}: păstrează tipul "
            "scorului (fără `.double()`, `.half()`, `.long()` sau o constantă tensor de alt tip). Kernel-ul "
            "fuzionat ține scorurile în registre, în tipul lor; o conversie costă și poate pierde precizie."
        )
    return iesire


def _pozitii_proba(rng, n: int, dispozitiv) -> dict[str, torch.Tensor]:
    """Câte o poziție pentru fiecare dintre cele `n` scoruri-probă: loturi și capete de la 0 la 7, indici de
    la 0 la `INDICE_SONDA` − 1 (și departe de diagonală, și după multe blocuri), aleși la întâmplare, plus
    colțurile."""
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    pozitii = {nume: torch.randint(0, sus, (n,), generator=generator, dtype=torch.int32)
               for nume, sus in (("b", 8), ("h", 8), ("q_idx", INDICE_SONDA), ("kv_idx", INDICE_SONDA))}
    for nume, sus in (("b", 7), ("h", 7), ("q_idx", INDICE_SONDA - 1), ("kv_idx", INDICE_SONDA - 1)):  # colțurile
        pozitii[nume][-4:] = torch.tensor([sus, 0, sus, 0], dtype=torch.int32)
    return {nume: t.to(dispozitiv) for nume, t in pozitii.items()}


def _depinde_de_pozitii_2(score_mod, scoruri, iesire, rng, limita, interzise) -> str | None:
    """Același score_mod, pe aceleași scoruri, la alte poziții: limitarea depinde doar de scor și de limită,
    deci rezultatul trebuie să fie același. Întoarce mesajul, dacă nu e."""
    pozitii = _pozitii_proba(rng, scoruri.numel(), scoruri.device)
    altundeva = _incearca_score_mod(score_mod, scoruri, interzise, pozitii)
    diferite = ~torch.isclose(altundeva.double(), iesire.double(), rtol=1e-5, atol=1e-5 * max(limita, 1.0))
    if not bool(diferite.any()):
        return None
    i = int(diferite.nonzero()[0])
    b, h, q, kv = (int(pozitii[n][i]) for n in ("b", "h", "q_idx", "kv_idx"))
    return (
        f"Funcția ta score_mod dă alt rezultat pentru același scor la alte poziții: scorul "
        f"{numar_precis(float(scoruri[i]))} devine {numar_precis(float(iesire[i]))} la b = h = q_idx = kv_idx = 0 și "
        f"{numar_precis(float(altundeva[i]))} la b = {b}, h = {h}, q_idx = {q}, kv_idx = {kv} (limita = "
        f"{format_numar(limita)}). Limitarea scorurilor depinde doar de `score` și de `limita`, nu de lot, de cap "
        "sau de poziții: `limita * torch.tanh(score / limita)`."
    )


def _aproape(a: torch.Tensor, b: torch.Tensor, limita: float) -> bool:
    return bool(torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-4 * max(limita, 1.0)))


def _diagnostic_proba_2(iesire: torch.Tensor, scoruri: torch.Tensor, limita: float) -> str | None:
    """Ce a greșit score_mod-ul, după valorile lui pe scorurile-probă; None dacă sunt cele corecte."""
    s = scoruri.double().cpu()
    y = iesire.double().cpu()
    asteptat = limita * torch.tanh(s / limita)
    if _aproape(y, asteptat, limita):
        return None
    L = format_numar(limita)
    if not torch.isfinite(y).all():
        return (f"Funcția ta score_mod dă valori infinite sau NaN pentru unele scoruri (limita = {L}): scorul limitat lin "
                "rămâne mereu între −limita și limita. `-inf` e pentru mascare, nu pentru limitare.")
    if float(y.max() - y.min()) < 1e-6 * max(1.0, float(y.abs().max())):
        return (f"Funcția ta score_mod întoarce aceeași valoare ({numar_precis(float(y[0]))}) oricare ar fi scorul: "
                "ignoră `score`. Atunci toate pozițiile primesc aceeași pondere și atenția devine o medie simplă. "
                "Calculează scorul nou din `score`: `limita * torch.tanh(score / limita)`.")
    if _aproape(y, s, limita):
        return (f"Scorurile nu sunt limitate (limita = {L}): funcția ta întoarce scorul neschimbat, așa că un "
                "scor de 1 000 rămâne 1 000 și softmax-ul pune toată ponderea pe o singură poziție. Limitează-l lin: "
                "`limita * torch.tanh(score / limita)`.")
    if _aproape(y, s.clamp(-limita, limita), limita):
        return (f"Ai tăiat scorurile brusc la ±{L} (`clamp`): toate scorurile peste limită devin egale și gradientul lor "
                "e zero. Limitarea scorurilor (soft-capping) e lină, cu tanh: `limita * torch.tanh(score / limita)` e aproape "
                "de `score` lângă 0 și se apropie de ±limita fără s-o atingă.")
    if _aproape(y, torch.tanh(s), limita):
        return (f"Ai calculat `torch.tanh(score)`: scorurile ajung între −1 și 1, nu între −{L} și {L}, iar diferențele "
                "dintre ele se pierd aproape toate. Împarte la limită înainte de tanh și înmulțește cu ea după: "
                "`limita * torch.tanh(score / limita)`.")
    if _aproape(y, limita * torch.tanh(s), limita):
        return (f"Ai calculat `limita * torch.tanh(score)`, fără împărțirea la limită: scorurile ajung la ±{L} deja de "
                "la ±3, iar cele mici sunt înmulțite cu limita. Împarte înainte de tanh: "
                "`limita * torch.tanh(score / limita)`, care lasă scorurile mici aproape neschimbate.")
    if _aproape(y, torch.tanh(s / limita), limita):
        return (f"Ai calculat `torch.tanh(score / limita)`, fără înmulțirea cu limita: scorurile ajung între −1 și 1, "
                f"nu între −{L} și {L}. Înmulțește cu limita: `limita * torch.tanh(score / limita)`.")
    if _aproape(y, -asteptat, limita):
        return ("Funcția ta dă scorul limitat cu semnul schimbat: pozițiile cele mai potrivite ar primi cea mai "
                "mică pondere. Fără minus: `limita * torch.tanh(score / limita)`.")
    saturat = float(y[-1])
    if saturat > 0 and math.isfinite(saturat):
        if _aproape(y, saturat * torch.tanh(s / saturat), saturat):
            return (f"Scorurile tale sunt limitate la ±{format_numar(saturat)}, nu la limita primită, "
                    f"{L}: folosește argumentul `limita` al lui `softcap`, nu o valoare scrisă de mână. Verificarea "
                    "alege altă limită la fiecare rulare.")
        if _aproape(y, s.clamp(-saturat, saturat), saturat):
            return (f"Ai tăiat scorurile brusc (`clamp`), și încă la ±{format_numar(saturat)}, nu la limita primită, {L}. "
                    "Limitează-le lin, cu limita primită: `limita * torch.tanh(score / limita)`.")
    i = int((y - asteptat).abs().argmax())
    return (f"Funcția ta nu limitează scorurile ca `limita * tanh(score / limita)`: pentru scorul "
            f"{numar_precis(float(s[i]))}, cu limita {L}, dă {numar_precis(float(y[i]))}; trebuia "
            f"{numar_precis(float(asteptat[i]))}.")


def _atentie_densa(q, k, v, transforma=None, masca=None) -> torch.Tensor:
    """Atenția densă de referință: softmax(transforma(q·kᵀ·scale), cu masca) · v, în float64."""
    scoruri = (q.double() @ k.double().transpose(-2, -1)) * q.shape[-1] ** -0.5
    if transforma is not None:
        scoruri = transforma(scoruri)
    if masca is not None:
        scoruri = scoruri.masked_fill(~masca.to(scoruri.device), float("-inf"))
    return (torch.softmax(scoruri, dim=-1) @ v.double()).to(q.dtype)


def _qkv(rng, lungime: int, dispozitiv, inmultire_q: float = 1.0):
    """q, k, v de forma (LOTURI_PROBA, CAPETE_PROBA, lungime, 16 sau 32): mai multe loturi și capete, ca o
    funcție care depinde de `b` sau de `h` să dea altă atenție."""
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    dim = rng.choice((16, 32))
    forma = (LOTURI_PROBA, CAPETE_PROBA, lungime, dim)
    q, k, v = (torch.randn(forma, generator=generator) for _ in range(3))
    return (q * inmultire_q).to(dispozitiv), k.to(dispozitiv), v.to(dispozitiv)


def exercitiul_2(softcap) -> Rezultat:
    """Verifică `softcap(limita)`, care întoarce un `score_mod(score, b, h, q_idx, kv_idx)` ce limitează lin
    scorurile: `limita * tanh(score / limita)`. Pentru trei limite alese la întâmplare între 2,5 și 40,
    încearcă întâi score_mod-ul direct, pe o serie de scoruri (ca să spună exact ce nu e bine), o dată la
    pozițiile 0 și o dată la poziții alese la întâmplare (loturi, capete, indici până la `INDICE_SONDA`), apoi
    rulează `flex_attention(q, k, v, score_mod=...)` pe `LOTURI_PROBA` loturi și `CAPETE_PROBA` capete,
    ultima dată pe o secvență lungă, cu q mărit, ca scorurile să fie mari și limitarea să conteze, și
    compară cu atenția densă cu scorurile limitate."""

    def corp():
        cere_functie(softcap, "softcap(limita)", 1)
        rng = generator_aleator()
        dispozitiv = dispozitivul()
        rtol, atol = _tolerante(dispozitiv)
        interzise = None
        mic, mare = (130, 400) if not _pe_gpu(dispozitiv) else (500, 1500)
        limite = _limite_2(rng)
        for indice, limita in enumerate(limite):
            score_mod = _apeleaza_cursantul(softcap, limita, interzise=interzise, ce="funcția ta `softcap`",
                                            fel="score_mod")
            _cere_mod(score_mod, "score_mod", "softcap")
            scoruri = _scoruri_proba(limita, dispozitiv)
            iesire = _incearca_score_mod(score_mod, scoruri, interzise)
            problema = (_diagnostic_proba_2(iesire, scoruri, limita)
                        or _depinde_de_pozitii_2(score_mod, scoruri, iesire, rng, limita, interzise))
            if problema:
                raise GresealaCursant(problema)

            # Ultima limită, pe o secvență lungă (multe blocuri): și departe de diagonală.
            lungime = (rng.randint(mic, mare) if indice < len(limite) - 1 else
                       _lungime_nemultiplu(rng, *LUNGIME_LUNGA["cuda" if _pe_gpu(dispozitiv) else "cpu"]))
            q, k, v = _qkv(rng, lungime, dispozitiv, inmultire_q=max(8.0, 2 * limita))
            obtinut = _cheama_mod(_flex().flex_attention, q, k, v, score_mod=score_mod, ce="score_mod",
                                  cine="`flex_attention` cu funcția ta score_mod", interzise=interzise)
            asteptat = _atentie_densa(q, k, v, lambda s: limita * torch.tanh(s / limita))
            try:
                compara_tensori(obtinut, asteptat, f"flex_attention, limita {format_numar(limita)}, S = {lungime}",
                                rtol=rtol, atol=atol)
            except GresealaCursant as greseala:
                raise GresealaCursant(
                    f"{greseala} Pe scoruri luate separat, funcția ta score_mod dă valorile bune; în atenție, nu: rezultatul "
                    "ei depinde și de poziții (`b`, `h`, `q_idx`, `kv_idx`) sau de ceva schimbat între apeluri. "
                    "Limitarea scorurilor depinde doar de `score` și de `limita`."
                ) from None
        limite_text = "; ".join(format_numar(l) for l in limite[:-1]) + f" și {format_numar(limite[-1])}"
        return (
            f"Scorurile tale sunt limitate lin la (−limita, limita): pentru limitele {limite_text}, funcția ta "
            "score_mod dă `limita · tanh(score / limita)`, iar `flex_attention` cu ea dă aceeași ieșire ca atenția "
            "densă cu scorurile limitate, pe scoruri mari, unde limitarea contează. Lângă 0 scorurile rămân aproape neschimbate."
        )

    return verificare("Exercițiul 2", corp, limita_s=_LIMITA_2_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: mască pe documente, ca BlockMask
# ---------------------------------------------------------------------------------------------


def _identificatori(lungimi: list[int], dispozitiv=None) -> torch.Tensor:
    return torch.repeat_interleave(torch.arange(len(lungimi)), torch.tensor(lungimi)).to(dispozitiv or "cpu")


def _densa_3(lungimi: list[int]) -> torch.Tensor:
    documente = _identificatori(lungimi)
    pozitii = torch.arange(documente.numel())
    return (documente[:, None] == documente[None, :]) & (pozitii[None, :] <= pozitii[:, None])


def _imparte(rng, total: int, bucati: int, minim: int = 1) -> list[int]:
    """`total` împărțit la întâmplare în `bucati` lungimi de cel puțin `minim`."""
    taieturi = sorted(rng.sample(range(1, total - (minim - 1) * bucati), bucati - 1))
    margini = [0, *taieturi, total - (minim - 1) * bucati]
    return [b - a + minim - 1 for a, b in zip(margini, margini[1:])]


#: Lungimea totală a celor două împărțiri cu care verificarea caută o recompilare (exercițiul 3), pe
#: procesor și pe GPU: fixă, ca o verificare rulată din nou pe aceeași soluție să găsească în cache-ul lui
#: Inductor kernel-ul deja compilat (graful nu depinde de împărțire, dacă granițele sunt date).
LUNGIME_RECOMPILARE = {"cpu": 333, "cuda": 1333}


def _cazuri_3(rng, pe_gpu: bool) -> tuple[list[list[int]], tuple[list[int], list[int]]]:
    """Împărțirile verificate: câteva documente (lungimi care nu sunt multipli de 128), unul singur, multe
    scurte; plus două împărțiri de aceeași lungime totală (`LUNGIME_RECOMPILARE`), cu alte granițe și alt
    număr de documente (între 3 și 5), pentru recompilare."""
    mic, mare = (260, 600) if not pe_gpu else (900, 2000)

    def lungime():
        while True:
            s = rng.randint(mic, mare)
            if s % 128:
                return s

    s = lungime()
    while True:
        cateva = _imparte(rng, s, rng.randint(3, 5), minim=20)
        if all(l % 128 for l in cateva):
            break
    unul = [lungime()]
    s = lungime()
    multe: list[int] = []
    while sum(multe) < s:
        multe.append(min(rng.randint(1, 40), s - sum(multe)))
    total = LUNGIME_RECOMPILARE["cuda" if pe_gpu else "cpu"]
    bucati = rng.randint(3, 5)
    prima = _imparte(rng, total, bucati, minim=20)
    # A doua: alte granițe și alt număr de documente (un graf care depinde de numărul lor recompilează).
    a_doua = _imparte(rng, total, rng.choice([n for n in range(3, 6) if n != bucati]), minim=20)
    return [cateva, unul, multe], (prima, a_doua)


def _descrie_impartirea(lungimi: list[int]) -> str:
    total = sum(lungimi)
    if len(lungimi) == 1:
        return f"un singur document de {cu_substantiv(total, 'jeton', 'jetoane')}"
    return (f"{cu_substantiv(len(lungimi), 'document', 'documente')} cu lungimile {_sirul(lungimi)}, în total "
            f"{cu_substantiv(total, 'jeton', 'jetoane')}")


def _cere_block_mask(raspuns, lungimi: list[int], dispozitiv) -> None:
    flex = _flex()
    total = sum(lungimi)
    if raspuns is None:
        raise GresealaCursant("`masca_documente` a întors None: ai uitat `return`? Trebuia un `BlockMask`, din "
                              "`create_block_mask(mask_mod, None, None, S, S, device=dispozitiv)`.")
    if isinstance(raspuns, torch.Tensor):
        raise GresealaCursant(
            f"`masca_documente` a întors un tensor de forma {tuple(raspuns.shape)} (o mască densă), nu un `BlockMask`. "
            "Masca densă are S² valori, iar kernel-ul ar trebui s-o citească toată; `BlockMask`-ul spune, pe blocuri "
            "de 128 × 128, care blocuri au ceva de calculat. Fă-l cu "
            "`create_block_mask(mask_mod, None, None, S, S, device=dispozitiv)`."
        )
    if not isinstance(raspuns, flex.BlockMask) and callable(raspuns):
        raise GresealaCursant(
            "`masca_documente` a întors o funcție (un mask_mod?), nu un `BlockMask`: dă-o lui "
            "`create_block_mask(mask_mod, None, None, S, S, device=dispozitiv)` și întoarce rezultatul."
        )
    if not isinstance(raspuns, flex.BlockMask):
        raise GresealaCursant(f"`masca_documente` a întors {type(raspuns).__name__}, nu un `BlockMask`: fă-l cu "
                              "`create_block_mask(mask_mod, None, None, S, S, device=dispozitiv)`.")
    lungimi_masca = tuple(int(x) for x in raspuns.seq_lengths)
    if lungimi_masca != (total, total):
        raise GresealaCursant(
            f"BlockMask-ul tău e făcut pentru lungimile {lungimi_masca}, dar pentru {_descrie_impartirea(lungimi)}, "
            f"trebuia ({total}, {total}): S = sum(lungimi), exact, nu rotunjit la un multiplu de 128."
        )
    unde = raspuns.kv_num_blocks.device
    if unde.type != dispozitiv.type:
        raise GresealaCursant(
            f"BlockMask-ul tău e pe {unde}, dar verificarea rulează atenția pe {dispozitiv}, dispozitivul primit: "
            "dă-l lui `create_block_mask(..., device=dispozitiv)` și pune și tensorii măștii (de exemplu "
            "identificatorii documentelor) pe el."
        )


def _diagnostic_3(masca: torch.Tensor, asteptat: torch.Tensor, lungimi: list[int]) -> str:
    caz = f"({_descrie_impartirea(lungimi)})"
    documente = _identificatori(lungimi)
    pozitii = torch.arange(documente.numel())
    cauzala = pozitii[None, :] <= pozitii[:, None]
    acelasi = documente[:, None] == documente[None, :]
    if masca.all():
        return (f"Masca ta permite toate perechile {caz}: fiecare jeton vede tot, și alte documente, și viitorul. "
                "Trebuie `(ids[q_idx] == ids[kv_idx]) & (kv_idx <= q_idx)`.")
    if torch.equal(masca, asteptat.T):
        return (f"Masca ta e oglindită {caz}: ai inversat `q_idx` și `kv_idx`; cauzal înseamnă `kv_idx <= q_idx`.")
    if len(lungimi) > 1 and torch.equal(masca, cauzala):
        return (f"Masca ta e doar cauzală {caz}: nu ține cont de documente, iar un jeton vede și documentele "
                "dinaintea lui. Adaugă condiția „același document”: `ids[q_idx] == ids[kv_idx]`, cu `ids` "
                "documentul fiecărei poziții.")
    if torch.equal(masca, acelasi):
        return (f"Masca ta nu e cauzală {caz}: un jeton vede tot documentul lui, și jetoanele de după el. Adaugă "
                "`& (kv_idx <= q_idx)`.")
    if torch.equal(masca, asteptat & (pozitii[None, :] < pozitii[:, None])):
        return (f"În masca ta, niciun jeton nu se vede pe el însuși {caz}: cauzal înseamnă `kv_idx <= q_idx`, nu "
                "`kv_idx < q_idx`. Primul jeton al fiecărui document n-ar vedea nimic, iar rândul lui din softmax ar "
                "fi gol (NaN).")
    gresite = (masca != asteptat).nonzero().tolist()
    q, kv = gresite[0]
    dq, dkv = int(documente[q]), int(documente[kv])
    if masca[q, kv]:
        if dq != dkv:
            fraza = f"jetonul {q} (din documentul {dq}) vede jetonul {kv}, din alt document (documentul {dkv})"
        else:
            fraza = f"jetonul {q} vede jetonul {kv}, de după el (viitorul, în documentul {dq})"
    else:
        fraza = (f"jetonul {q} nu vede jetonul {kv}, deși sunt în același document (documentul {dq}) și {kv} e "
                 + ("chiar poziția lui" if q == kv else "înaintea lui"))
    sfat = ""
    inceputuri = {sum(lungimi[:i]) for i in range(1, len(lungimi))}
    la_granita = bool(inceputuri & {q, kv, q + 1, kv + 1})
    if len(lungimi) > 1 and la_granita and (dq != dkv or (q != kv and not masca[q, kv])):
        sfat = (" Greșeala e la granița dintre documente: verifică unde începe fiecare document (începutul "
                "documentului i e suma lungimilor dinaintea lui).")
    return (f"Masca ta diferă de cea cerută {caz}: {fraza}. În total, "
            f"{cu_substantiv(len(gresite), 'pereche greșită', 'perechi greșite')} din "
            f"{format_numar(asteptat.numel())}.{sfat}")


def _atentie_pentru_compilare(q, k, v, masca):
    return _modul_flex.flex_attention(q, k, v, block_mask=masca)


def _garda_cazuta(eroare: BaseException) -> str:
    text = str(eroare)
    potrivire = re.search(r"guard failure\(s\):\s*\n\s*-\s*(.+)", text)
    if not potrivire:
        return ""
    garda = descrie_garda(potrivire.group(1).strip())
    garda = re.sub(r"\s+#.*$", "", garda)
    return garda[:200]


def _verifica_recompilarea(masca_documente, lungimi_a, lungimi_b, rng, dispozitiv, interzise) -> None:
    """Compilează `flex_attention` (o funcție nouă, cu cache-ul Dynamo gol), o rulează cu masca ta pentru
    împărțirea A, apoi, sub `set_stance("fail_on_recompile")`, pentru împărțirea B, cu același total, alte
    granițe și alt număr de documente; compară amândouă ieșirile cu atenția densă."""
    rtol, atol = _tolerante(dispozitiv)
    total = sum(lungimi_a)
    bloc_a, bloc_b = (
        _apeleaza_cursantul(masca_documente, list(lungimi), dispozitiv, interzise=interzise,
                            ce="funcția ta `masca_documente`", fel="mask_mod_documente",
                            limita_s=LIMITA_COMPILARE_S, dispozitiv=dispozitiv)
        for lungimi in (lungimi_a, lungimi_b)
    )
    _cere_block_mask(bloc_a, lungimi_a, dispozitiv)
    _cere_block_mask(bloc_b, lungimi_b, dispozitiv)
    q, k, v = _qkv(rng, total, dispozitiv)
    # `fullgraph=True`: o întrerupere a grafului în mask_mod ar trimite altfel tot apelul în modul eager, fără
    # nicio compilare (deci și fără recompilare de văzut).
    compilata = torch.compile(functie_noua(_atentie_pentru_compilare), fullgraph=True)
    try:
        with _mediu_flex():
            prima = apeleaza(compilata, q, k, v, bloc_a, limita_s=LIMITA_COMPILARE_S, interzise=interzise,
                             ce="compilarea lui `flex_attention` cu masca ta")
    except GresealaCursant as greseala:
        eroare = greseala.exceptie
        unde = f" (La `torch.compile(flex_attention)`, cu {_descrie_impartirea(lungimi_a)}.)"
        exc = getattr(torch._dynamo, "exc", None)
        if eroare is not None and exc is not None and isinstance(eroare, getattr(exc, "Unsupported", ())):
            linie = linia_cursantului(eroare)
            la_linia = f", la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else ""
            raise GresealaCursant(
                f"Masca ta are o întrerupere a grafului{la_linia}: Dynamo n-o poate urmări întreagă. "
                "`torch.compile(flex_attention)` pune mask_mod-ul în kernel-ul fuzionat al atenției, ca pe un singur "
                "graf, deci o întrerupere (`torch._dynamo.graph_break()`, `print`, o funcție pe care Dynamo n-o "
                "cunoaște) nu e permisă acolo. Scoate-o din mask_mod: păstrează doar operații pe tensori, pe fiecare "
                f"pereche.{unde}{cu_originalul(traduce_exceptie(eroare))}"
            ) from None
        greseala = _explica_urmarirea(greseala, "mask_mod_documente", cine="Compilarea lui `flex_attention` cu masca ta")
        sfat = ""
        if eroare is not None and re.search(r"Inductor|BackendCompilerFailed|Lowering",
                                            f"{type(eroare).__name__} {eroare}"):
            sfat = (" Masca ta merge necompilată, dar Inductor n-a putut-o pune în kernel-ul fuzionat al atenției. "
                    "În mask_mod, păstrează operații simple, pe fiecare pereche: comparații, `&`, `|`, indexarea unui "
                    "tensor capturat (`ids[q_idx]`); ce cere o căutare sau o sumă pe tot șirul (`searchsorted`, "
                    "`cumsum`) calculează o singură dată, în afara lui mask_mod, într-un tensor capturat.")
        raise GresealaCursant(f"{greseala}{unde}{sfat}") from None
    compara_tensori(prima, _atentie_densa(q, k, v, masca=_densa_3(lungimi_a)),
                    f"flex_attention compilat, {_descrie_impartirea(lungimi_a)}", rtol=rtol, atol=atol)
    try:
        with _mediu_flex(), torch.compiler.set_stance("fail_on_recompile"):
            a_doua = apeleaza(compilata, q, k, v, bloc_b, limita_s=LIMITA_COMPILARE_S, interzise=interzise,
                              ce="`flex_attention` compilat, cu a doua împărțire")
    except GresealaCursant as greseala:
        eroare = greseala.exceptie
        if eroare is None or "recompile" not in str(eroare).lower():
            raise
        raise GresealaCursant(_mesaj_recompilare_3(eroare, lungimi_a, lungimi_b)) from None
    compara_tensori(a_doua, _atentie_densa(q, k, v, masca=_densa_3(lungimi_b)),
                    f"flex_attention compilat, {_descrie_impartirea(lungimi_b)}", rtol=rtol, atol=atol)


def _mesaj_recompilare_3(eroare: BaseException, lungimi_a: list[int], lungimi_b: list[int]) -> str:
    """De ce a recompilat `flex_attention` compilat la a doua împărțire, după garda căzută: un tensor al
    măștii cu mărimea legată de numărul documentelor sau granițele (și numărul lor) scrise în cod."""
    garda = _garda_cazuta(eroare)
    text_garda = f" Garda căzută: {garda}." if garda else ""
    inceput = (
        f"Cu o altă împărțire de aceeași lungime totală ({sum(lungimi_a)}), "
        f"{cu_substantiv(len(lungimi_a), 'document', 'documente')} ({_sirul(lungimi_a)}), apoi "
        f"{cu_substantiv(len(lungimi_b), 'document', 'documente')} ({_sirul(lungimi_b)}), "
        f"`torch.compile(flex_attention)` a trebuit să recompileze.{text_garda}"
    )
    sfat = (
        " Pune documentul fiecărei poziții într-un tensor de lungime S, pe dispozitivul primit: "
        "`ids = torch.repeat_interleave(torch.arange(len(lungimi), device=dispozitiv), "
        "torch.tensor(lungimi, device=dispozitiv))`, și compară `ids[q_idx] == ids[kv_idx]`. O împărțire nouă, cu "
        "oricâte documente, e atunci doar un tensor cu alte valori, de aceeași formă, iar codul compilat rămâne același."
    )
    if re.search(r"size mismatch|altă mărime", f"{garda} {eroare}"):
        return (inceput + " Masca ta capturează un tensor a cărui mărime ține de numărul documentelor (de exemplu, "
                "începuturile sau lungimile lor): Dynamo pune o gardă pe forma fiecărui tensor capturat, iar o formă nouă "
                "înseamnă alt kernel. Valori noi într-un tensor de aceeași formă nu recompilează; o formă nouă, da." + sfat)
    return (inceput + " Granițele documentelor (sau numărul lor) sunt cod în mask_mod-ul tău, nu date: numere Python "
            "capturate, o buclă peste `lungimi`. Dynamo le scrie în graf și pune o gardă pe fiecare. Un număr schimbat "
            "recompilează la prima schimbare, apoi Dynamo îl face simbolic și nu mai recompilează pentru el (tabelul "
            "recompilărilor din capitol), dar un alt număr de documente e o buclă de altă lungime, deci alt graf, "
            "de compilat din nou." + sfat)


def exercitiul_3(masca_documente) -> Rezultat:
    """Verifică `masca_documente(lungimi, dispozitiv)`, care întoarce un `BlockMask` pentru atenția cauzală
    în interiorul fiecărui document (`lungimi`: documentele, unul după altul; S = sum(lungimi); masca e
    făcută cu `create_block_mask(mask_mod, None, None, S, S, device=dispozitiv)`). Pe trei împărțiri alese
    la întâmplare (câteva documente, unul singur, multe scurte): tipul și lungimile, masca densă
    (`create_mask(raspuns.mask_mod, …)`) poziție cu poziție, raritatea (*sparsity*) față de referință (o
    mască densă deghizată, care marchează toate blocurile, e respinsă), ieșirea lui `flex_attention` față
    de atenția densă (pe `LOTURI_PROBA` loturi și `CAPETE_PROBA` capete) și lipsa unui tabel S × S în
    mask_mod. La sfârșit, o singură dată, compilează `flex_attention` și îl rulează cu masca ta pentru o
    a doua împărțire cu același total, dar cu alte granițe și alt număr de documente: o recompilare e
    respinsă. Funcția ta are la fiecare apel limita de timp a unei compilări (`LIMITA_COMPILARE_S`), ca
    `create_block_mask(..., _compile=True)` să încapă și pe o mașină încărcată."""

    def corp():
        cere_functie(masca_documente, "masca_documente(lungimi, dispozitiv)", 2)
        rng = generator_aleator()
        dispozitiv = dispozitivul()
        flex = _flex()
        rtol, atol = _tolerante(dispozitiv)
        interzise = None
        cazuri, (prima, a_doua) = _cazuri_3(rng, _pe_gpu(dispozitiv))
        raritati = []
        for lungimi in cazuri:
            total = sum(lungimi)
            caz = _descrie_impartirea(lungimi)
            raspuns = _apeleaza_cursantul(masca_documente, list(lungimi), dispozitiv, interzise=interzise,
                                          ce="funcția ta `masca_documente`", fel="mask_mod_documente",
                                          limita_s=LIMITA_COMPILARE_S, dispozitiv=dispozitiv)
            _cere_block_mask(raspuns, lungimi, dispozitiv)
            mask_mod = raspuns.mask_mod
            _fara_tabel_capturat(mask_mod, total, "ex3")
            masca = _masca_densa(mask_mod, total, dispozitiv, "ex3", interzise)
            asteptat = _densa_3(lungimi)
            if not torch.equal(masca, asteptat):
                raise GresealaCursant(_diagnostic_3(masca, asteptat, lungimi))

            with _mediu_flex():
                tabel = _masca_din_tabel(asteptat.to(dispozitiv))
                referinta = flex.create_block_mask(tabel, None, None, total, total, device=dispozitiv)
                bloc = tuple(int(b) for b in raspuns.BLOCK_SIZE)
                referinta_la_fel = referinta if bloc == tuple(referinta.BLOCK_SIZE) else flex.create_block_mask(
                    tabel, None, None, total, total, device=dispozitiv, BLOCK_SIZE=bloc)
            a_ta, a_referintei, implicita = _raritatea(raspuns), _raritatea(referinta_la_fel), _raritatea(referinta)
            blocuri = f"{bloc[0]} × {bloc[1]}"
            if a_ta < a_referintei - 1e-6 or a_ta < implicita - 1e-6:
                mai_mari = bloc != tuple(referinta.BLOCK_SIZE) and a_ta >= a_referintei - 1e-6
                cauza = (f"Blocurile tale, de {blocuri}, sunt mai mari decât cele implicite, de 128 × 128: un bloc mare "
                         "are mai des măcar o pereche permisă, deci kernel-ul sare peste mai puține. Lasă `BLOCK_SIZE` "
                         "implicit." if mai_mari else
                         "Masca densă e corectă, dar BlockMask-ul tău marchează ca necesare blocuri în care nu e nicio "
                         "pereche permisă: e o mască densă deghizată în mască pe blocuri (de exemplu, un BlockMask făcut din "
                         "`noop_mask` sau cu `BlockMask.from_kv_blocks` peste toate blocurile, cu masca adevărată pusă "
                         "doar în `mask_mod`). Kernel-ul ar vizita fiecare bloc marcat și ar calcula degeaba. Fă "
                         "BlockMask-ul cu `create_block_mask` chiar din mask_mod-ul tău: el află singur care blocuri "
                         "sunt goale.")
                raise GresealaCursant(
                    f"Pentru {caz}, BlockMask-ul tău sare peste {_procent(a_ta)} din blocuri, iar masca pe documente, "
                    f"făcută cu `create_block_mask`, peste {_procent(implicita)}. {cauza}"
                )
            if a_ta > a_referintei + 1e-6:
                raise GresealaCursant(
                    f"Pentru {caz}, BlockMask-ul tău sare peste {_procent(a_ta)} din blocuri, mai mult decât masca pe "
                    f"documente ({_procent(a_referintei)}): sare și peste blocuri în care sunt perechi permise, deci "
                    "atenția lor nu s-ar mai calcula. Blocurile nu se potrivesc cu mask_mod-ul: fă BlockMask-ul cu "
                    "`create_block_mask` chiar din mask_mod-ul tău."
                )

            q, k, v = _qkv(rng, total, dispozitiv)
            obtinut = _cheama_mod(flex.flex_attention, q, k, v, block_mask=raspuns, ce="mask_mod_documente", fara_dynamo=True,
                                  cine="`flex_attention` cu masca ta", interzise=interzise)
            compara_tensori(obtinut, _atentie_densa(q, k, v, masca=asteptat), f"flex_attention, {caz}",
                            rtol=rtol, atol=atol)
            raritati.append((lungimi, a_ta))

        _verifica_recompilarea(masca_documente, prima, a_doua, rng, dispozitiv, interzise)
        multe, raritate_multe = raritati[2]
        return (
            "Masca ta pe documente e corectă pe trei împărțiri alese la întâmplare (câteva documente, unul singur, "
            f"{cu_substantiv(len(multe), 'document scurt', 'documente scurte')}), e calculată din identificatorii "
            "documentelor, fără un tabel S × S, și sare peste tot atâtea blocuri cât se poate: "
            f"{_procent(raritate_multe)} la cele {cu_substantiv(len(multe), 'document', 'documente')} scurte. "
            f"`torch.compile(flex_attention)` a primit o a doua împărțire, de aceeași lungime ({sum(prima)}), cu "
            f"{len(a_doua)} în loc de {cu_substantiv(len(prima), 'document', 'documente')}, fără recompilare: "
            "granițele sunt date, nu cod."
        )

    return verificare("Exercițiul 3", corp, limita_s=_LIMITA_3_S)
