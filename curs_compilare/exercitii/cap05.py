"""Verificările exercițiilor din capitolul 05 — reglarea automată (*autotuning*) și
`torch.compile(mode="max-autotune")`."""

from __future__ import annotations

import itertools
import math
import numbers
import signal
import threading
from dataclasses import dataclass, replace

import numpy as np
import torch

from ..cifre import cu_prefix, cu_substantiv, cu_unitate, format_numar, format_octeti
from ..mediu import SM_MINIM_GEMM_AUTOTUNE
from .baza import NESCRIS, GresealaCursant, Rezultat, apeleaza, compara_tensori, verificare

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "DescriereGPU",
    "GPU_URI_DE_EXEMPLU",
]


def _cu_majuscula(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: configurații pentru reglarea automată a produsului de matrice
# ---------------------------------------------------------------------------------------------

_CHEI_PLACA = ("BM", "BN", "BK")
_PLACA_MINIMA = 16  # tl.dot cere plăci de cel puțin 16 pe fiecare latură
_PLACA_MAXIMA = 256
_WARPS_MAXIM = 16
_OCTETI_PE_ELEMENT = 2  # float16
_LIMITA_PARTAJATA_IMPLICITA = 227 * 1024  # H100/H200 (și A100 are 163 KiB)
_LIMITA_PARTAJATA_T4 = 64 * 1024
_ACCELERARE_MINIMA = 1.5
_FORMA_CORECTITUDINE_CPU = (70, 50, 40)  # M, N, K: nu sunt multipli de plăci
_FORMA_CORECTITUDINE_GPU = (300, 200, 100)
_LATURA_MASURARE = 2048


def _importa_reglare():
    """Modulul `curs_compilare.reglare`, sau o explicație dacă triton lipsește."""
    try:
        import triton  # noqa: F401
    except ImportError:
        raise GresealaCursant(
            "Pachetul triton nu e instalat pe această mașină (nu există pentru macOS și Windows): "
            "exercițiul cere Linux sau Colab."
        ) from None
    from .. import reglare

    if not reglare.ARE_TRITON:
        raise GresealaCursant("Pachetul triton nu s-a putut încărca pe această mașină: exercițiul cere Linux sau Colab.")
    return reglare


def _e_intreg(valoare) -> bool:
    return isinstance(valoare, numbers.Integral) and not isinstance(valoare, bool)


def _e_int_python(valoare) -> bool:
    return isinstance(valoare, int) and not isinstance(valoare, bool)


def _putere_a_lui_2(valoare: int) -> bool:
    return valoare > 0 and valoare & (valoare - 1) == 0


def _lista_configuratii(configuratii, Config) -> list:
    """Verifică forma răspunsului: o listă nevidă de `triton.Config`."""
    if configuratii is None:
        raise GresealaCursant("Ai dat None: scrie lista de configurații, [triton.Config(...), ...].")
    if isinstance(configuratii, Config):
        raise GresealaCursant(
            "Ai dat o singură configurație, nu o listă. Pune-o într-o listă, alături de altele: "
            "[triton.Config({...}, ...), triton.Config({...}, ...)] — reglarea automată alege dintre ele."
        )
    if not isinstance(configuratii, (list, tuple)):
        raise GresealaCursant(
            f"Trebuia o listă de triton.Config, dar am primit {type(configuratii).__name__}."
        )
    if not configuratii:
        raise GresealaCursant(
            "Lista e goală: reglarea automată are nevoie de configurații din care să aleagă. Adaugă "
            "câteva triton.Config({'BM': ..., 'BN': ..., 'BK': ...}, num_warps=..., num_stages=...)."
        )
    for numar, configuratie in enumerate(configuratii, start=1):
        if not isinstance(configuratie, Config):
            sfat = (
                " Ai scris doar dicționarul: învelește-l, triton.Config({'BM': 64, 'BN': 64, 'BK': 32}, "
                "num_warps=4, num_stages=3)."
                if isinstance(configuratie, dict)
                else " Fiecare element se scrie triton.Config({'BM': ..., 'BN': ..., 'BK': ...}, num_warps=..., num_stages=...)."
            )
            raise GresealaCursant(
                f"Elementul {numar} al listei e {type(configuratie).__name__}, nu un triton.Config.{sfat}"
            )
    return list(configuratii)


def _nume_configuratie(numar: int, configuratie) -> str:
    parametri = [f"{nume}={valoare!r}" for nume, valoare in dict(configuratie.kwargs).items()]
    parametri += [f"num_warps={configuratie.num_warps!r}", f"num_stages={configuratie.num_stages!r}"]
    return f"configurația {numar} ({', '.join(parametri)})"


def _verifica_parametrii(numar: int, configuratie) -> None:
    """Cheile BM, BN, BK, puterile lui 2, numărul de warp-uri și de etape."""
    nume = _nume_configuratie(numar, configuratie)
    parametri = configuratie.kwargs
    if not isinstance(parametri, dict):
        raise GresealaCursant(f"La {nume}, primul argument al lui triton.Config trebuie să fie un dicționar.")
    lipsa = [cheie for cheie in _CHEI_PLACA if cheie not in parametri]
    in_plus = [cheie for cheie in parametri if cheie not in _CHEI_PLACA]
    if lipsa or in_plus:
        parti = []
        if lipsa:
            parti.append("lipsește " + ", ".join(lipsa) if len(lipsa) == 1 else "lipsesc " + ", ".join(lipsa))
        if in_plus:
            parti.append("are în plus " + ", ".join(map(str, in_plus)))
        raise GresealaCursant(
            f"La {nume}: {'; '.join(parti)}. Parametrii constexpr ai lui kernel_matmul se numesc exact "
            "BM, BN și BK (plăcile lui C sunt BM × BN, iar K se parcurge în pași de BK); cheile "
            "dicționarului trebuie să fie exact acestea trei."
        )
    for cheie in _CHEI_PLACA:
        valoare = parametri[cheie]
        if not _e_int_python(valoare):
            raise GresealaCursant(
                f"La {nume}, {cheie} trebuie să fie un număr întreg Python (int), nu {type(valoare).__name__}: "
                "Triton nu primește ca parametri constexpr nici text, nici numere NumPy."
            )
        if not _putere_a_lui_2(valoare):
            raise GresealaCursant(
                f"La {nume}, {cheie}={valoare} nu e o putere a lui 2. tl.arange și plăcile lui Triton "
                "cer laturi de 16, 32, 64, 128 sau 256."
            )
        if valoare < _PLACA_MINIMA:
            raise GresealaCursant(
                f"La {nume}, {cheie}={valoare} e prea mic: tl.dot (produsul plăcilor, pe nucleele "
                f"tensoriale) cere plăci de cel puțin {_PLACA_MINIMA} pe fiecare latură."
            )
        if valoare > _PLACA_MAXIMA:
            raise GresealaCursant(
                f"La {nume}, {cheie}={valoare} e prea mare: acumulatorul BM × BN stă în registre, iar "
                f"plăcile A și B în memoria partajată; peste {_PLACA_MAXIMA} nu mai încap. Folosește "
                f"laturi între {_PLACA_MINIMA} și {_PLACA_MAXIMA}."
            )
    warps = configuratie.num_warps
    if not _e_int_python(warps) or not _putere_a_lui_2(warps) or warps > _WARPS_MAXIM:
        raise GresealaCursant(
            f"La {nume}, num_warps={warps!r} nu e valid: numărul de warp-uri (grupuri de 32 de fire de "
            f"execuție care lucrează împreună la o placă) e o putere a lui 2 între 1 și {_WARPS_MAXIM}."
        )
    etape = configuratie.num_stages
    if not _e_int_python(etape) or etape < 1:
        raise GresealaCursant(
            f"La {nume}, num_stages={etape!r} nu e valid: numărul de etape (câte plăci se aduc din "
            "memorie în avans) e un întreg de cel puțin 1, de obicei între 2 și 5."
        )


def _memorie_partajata(configuratie) -> int:
    """Estimarea memoriei partajate a unei configurații, în octeți (float16): num_stages plăci
    BM × BK din A și BK × BN din B, aduse în avans."""
    p = configuratie.kwargs
    return configuratie.num_stages * (p["BM"] * p["BK"] + p["BK"] * p["BN"]) * _OCTETI_PE_ELEMENT


def _limita_memorie_partajata() -> tuple[int, str]:
    """Memoria partajată maximă a unui bloc (octeți) și de unde vine limita, în cuvinte."""
    if torch.cuda.is_available():
        proprietati = torch.cuda.get_device_properties(0)
        limita = getattr(proprietati, "shared_memory_per_block_optin", None)
        if not limita:
            try:
                from triton.runtime import driver

                limita = driver.active.utils.get_device_properties(0)["max_shared_mem"]
            except Exception:
                limita = None
        if limita:
            return int(limita), f"GPU-ul tău ({proprietati.name}) are cel mult {format_octeti(limita)} pe bloc"
    return (
        _LIMITA_PARTAJATA_IMPLICITA,
        f"un GPU mare (H100, H200) are cel mult {format_octeti(_LIMITA_PARTAJATA_IMPLICITA)} pe bloc, "
        f"iar un T4 doar {format_octeti(_LIMITA_PARTAJATA_T4)}",
    )


def _e_de_tipul(eroare: BaseException, nume_clasa: str) -> bool:
    return any(clasa.__name__ == nume_clasa for clasa in type(eroare).__mro__)


def _explica_eroare_triton(eroare: Exception, nume: str) -> str:
    """O eroare de compilare sau de lansare a lui Triton, explicată pe scurt."""
    randuri = [r.strip() for r in str(eroare).strip().splitlines() if r.strip()]
    detaliu = (randuri[-1] if randuri else type(eroare).__name__)[:300]
    if _e_de_tipul(eroare, "OutOfResources"):
        if "shared" in str(eroare).lower():
            return (
                f"Triton n-a putut compila {nume}: nu încape în memoria partajată a GPU-ului ({detaliu}). "
                "Fiecare etapă (num_stages) ține în memoria partajată câte o placă BM × BK din A și una "
                "BK × BN din B: micșorează BK sau num_stages, ori plăcile."
            )
        return (
            f"Triton n-a putut compila {nume}: depășește resursele GPU-ului ({detaliu}). Micșorează "
            "plăcile sau schimbă numărul de warp-uri."
        )
    if _e_de_tipul(eroare, "CompilationError") or _e_de_tipul(eroare, "CompileTimeAssertionFailure"):
        return (
            f"Triton n-a putut compila kernel-ul cu {nume}: {detaliu}. Verifică valorile din configurație."
        )
    return f"Kernel-ul n-a rulat cu {nume}: {type(eroare).__name__}: {detaliu}."


def _lanseaza_configuratia(reglare, a, b, numar, configuratie):
    try:
        return reglare.matmul_cu_configuratie(
            a, b, **configuratie.kwargs, num_warps=configuratie.num_warps, num_stages=configuratie.num_stages
        )
    except Exception as eroare:  # compilare sau execuție
        raise GresealaCursant(_explica_eroare_triton(eroare, _nume_configuratie(numar, configuratie))) from None


def _verifica_corectitudinea(reglare, configuratii, dispozitiv) -> None:
    """Fiecare configurație, pe matrice ale căror laturi nu sunt multipli de plăci."""
    generator = torch.Generator().manual_seed(5)
    if dispozitiv.type == "cuda":
        M, N, K = _FORMA_CORECTITUDINE_GPU
        tip, toleranta = torch.float16, dict(rtol=1e-2, atol=1e-2)
    else:
        M, N, K = _FORMA_CORECTITUDINE_CPU
        tip, toleranta = torch.float32, dict(rtol=1e-4, atol=1e-4)
    a = torch.randn(M, K, generator=generator).to(dispozitiv, tip)
    b = torch.randn(K, N, generator=generator).to(dispozitiv, tip)
    asteptat = (a.float() @ b.float()).to(tip)
    for numar, configuratie in enumerate(configuratii, start=1):
        obtinut = _lanseaza_configuratia(reglare, a, b, numar, configuratie)
        compara_tensori(obtinut, asteptat, f"{_nume_configuratie(numar, configuratie)}, {M} × {K} @ {K} × {N}", **toleranta)


def _masoara_pe_gpu(reglare, configuratii) -> str:
    """Configurația de bază, versiunea reglată și torch.matmul, măsurate împreună cu `compara`
    (intercalat, în runde; pe GPU, do_bench) pe 2048³ în float16."""
    from ..concluzii import concluzie_accelerare
    from ..masurare import compara

    latura = _LATURA_MASURARE
    generator = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(latura, latura, device="cuda", dtype=torch.float16, generator=generator)
    b = torch.randn(latura, latura, device="cuda", dtype=torch.float16, generator=generator)
    operatii = reglare.flops_matmul(latura, latura, latura)
    baza = reglare.CONFIGURATIE_DE_BAZA

    def ruleaza_baza():
        return reglare.matmul_cu_configuratie(
            a, b, **baza.kwargs, num_warps=baza.num_warps, num_stages=baza.num_stages
        )

    reglat = reglare.matmul_reglat(configuratii)
    try:
        reglat(a, b)  # primul apel: aici se face reglarea, în afara cronometrării
        torch.cuda.synchronize()
    except Exception as eroare:
        raise GresealaCursant(_explica_eroare_triton(eroare, "una dintre configurații (la 2048 × 2048)")) from None
    aleasa = reglare.descrie_configuratie(reglat.configuratia_aleasa)
    comparatie = compara({"baza": ruleaza_baza, "reglat": lambda: reglat(a, b), "cublas": lambda: a @ b})
    m_baza, m_reglat, m_cublas = (comparatie[n] for n in ("baza", "reglat", "cublas"))
    raport = comparatie.accelerare("baza", "reglat")

    def debit(m):
        return cu_prefix(operatii / m.mediana_s, "FLOP/s")

    cifre = (
        f"Pe {latura} × {latura} × {latura}, float16: configurația de bază (16 × 16 × 16, un warp) "
        f"face {debit(m_baza)} ({cu_unitate(m_baza.mediana_ms, 'ms')}), versiunea ta reglată "
        f"{debit(m_reglat)} ({cu_unitate(m_reglat.mediana_ms, 'ms')}), cu {aleasa}. "
        + concluzie_accelerare(raport, "Versiunea ta reglată", "configurația de bază")
        + f" Pentru comparație, torch.matmul (cuBLAS) face {debit(m_cublas)}."
    )
    if raport.mediana < _ACCELERARE_MINIMA:
        raise GresealaCursant(
            f"{cifre}\nVersiunea reglată trebuia să fie de cel puțin {format_numar(_ACCELERARE_MINIMA)} ori mai rapidă. Reglarea automată alege "
            "doar dintre configurațiile pe care i le dai: adaugă plăci mai mari (BM și BN de 64 sau "
            "128, BK de 32 sau 64), 4 sau 8 warp-uri și 3–4 etape (num_stages)."
        )
    return cifre


def exercitiul_1(configuratii) -> Rezultat:
    """Verifică o listă de `triton.Config` pentru `kernel_matmul` (din `curs_compilare.reglare`):
    parametrii BM, BN, BK (puteri ale lui 2, cel puțin 16), num_warps, memoria partajată,
    rezultate corecte cu fiecare configurație. Pe GPU, versiunea reglată trebuie să fie de cel
    puțin 1,5 ori mai rapidă decât `CONFIGURATIE_DE_BAZA`; pe CPU, unde interpretorul nu spune
    nimic despre viteză, cel puțin o configurație trebuie să aibă o placă mai mare decât cea de bază.

    `configuratii` e lista însăși sau o funcție fără argumente care o întoarce."""

    def corp():
        reglare = _importa_reglare()
        import triton

        raspuns = configuratii
        if callable(raspuns) and not isinstance(raspuns, (list, tuple, triton.Config)):
            raspuns = apeleaza(raspuns)  # o funcție fără argumente care întoarce lista
        lista = _lista_configuratii(raspuns, triton.Config)
        for numar, configuratie in enumerate(lista, start=1):
            _verifica_parametrii(numar, configuratie)
        limita, unde = _limita_memorie_partajata()
        for numar, configuratie in enumerate(lista, start=1):
            necesar = _memorie_partajata(configuratie)
            if necesar > limita:
                raise GresealaCursant(
                    f"{_cu_majuscula(_nume_configuratie(numar, configuratie))} cere cam {format_octeti(necesar)} de "
                    f"memorie partajată: num_stages × (BM·BK + BK·BN) × 2 octeți (float16). Nu încape: "
                    f"{unde}. Micșorează BK sau num_stages."
                )
        dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        _verifica_corectitudinea(reglare, lista, dispozitiv)
        baza = reglare.CONFIGURATIE_DE_BAZA.kwargs
        placa_baza = baza["BM"] * baza["BN"]
        if dispozitiv.type == "cuda":
            cifre = _masoara_pe_gpu(reglare, lista)
            return (
                f"{cifre}\nPlăcile mari refolosesc fiecare element adus din memorie de mai multe ori: "
                "o placă BM × BN aduce (BM + BN) · BK elemente și face BM · BN · BK înmulțiri."
            )
        if not any(c.kwargs["BM"] * c.kwargs["BN"] > placa_baza for c in lista):
            raise GresealaCursant(
                f"Toate configurațiile tale au plăci de cel mult {baza['BM']} × {baza['BN']}, cât cea de bază: "
                "reglarea automată n-are din ce alege ceva mai rapid. Adaugă plăci mai mari (64 × 64, "
                "128 × 128): o placă BM × BN aduce din memorie (BM + BN) · BK elemente și face cu ele "
                "BM · BN · BK înmulțiri, deci cu cât e mai mare, cu atât fiecare drum la cămară e mai rentabil."
            )
        if len(lista) == 1:
            inceput = "Configurația ta e validă și dă rezultate corecte"
        else:
            inceput = f"Toate cele {cu_substantiv(len(lista), 'configurație', 'configurații')} sunt valide și dau rezultate corecte"
        return (
            f"{inceput}, inclusiv pe "
            "matrice ale căror laturi nu sunt multipli de plăci (rulate prin interpretorul Triton, pe CPU). "
            "Pe CPU, timpii interpretorului nu spun nimic despre un GPU; pe un GPU, verificarea "
            f"măsoară și viteza: versiunea reglată trebuie să fie de cel puțin {format_numar(_ACCELERARE_MINIMA)} "
            "ori mai rapidă decât configurația de bază."
        )

    return verificare("Exercițiul 1", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: după câți pași se amortizează compilarea cu max-autotune
# ---------------------------------------------------------------------------------------------

#: Cât are voie să dureze un caz al exercițiului 2 (o buclă `while` fără sfârșit se oprește).
_LIMITA_TIMP_2_S = 5.0

_ORDINEA_2 = "(compilare_default_s, pas_default_s, compilare_autotune_s, pas_autotune_s)"
_FORMULA_2 = (
    "Cauți cel mai mic n ≥ 1 pentru care compilare_autotune_s + n · pas_autotune_s ≤ "
    "compilare_default_s + n · pas_default_s, adică n ≥ (compilare_autotune_s − compilare_default_s) / "
    "(pas_default_s − pas_autotune_s), rotunjit în sus."
)


@dataclass(frozen=True)
class _Caz2:
    descriere: str
    argumente: tuple  # (compilare_default_s, pas_default_s, compilare_autotune_s, pas_autotune_s)


# Valorile cazului „egalitate exactă” sunt exacte în binar: la n = 640 costurile sunt egale la bit.
_CAZURI_2 = (
    _Caz2("tipic: compilare 5 s față de 60 s, pas 1,8 ms față de 1,5 ms", (5.0, 0.0018, 60.0, 0.0015)),
    _Caz2("egalitate exactă: compilare 20 s față de 180 s, pas 0,5 s față de 0,25 s", (20.0, 0.5, 180.0, 0.25)),
    _Caz2("max-autotune compilează mai repede: 30 s față de 25 s, pas 2 ms față de 1,5 ms", (30.0, 0.002, 25.0, 0.0015)),
    _Caz2("compilări la fel de lungi: 12 s și 12 s, pas 4 ms față de 3 ms", (12.0, 0.004, 12.0, 0.003)),
    _Caz2("pasul max-autotune e mai lent: compilare 5 s față de 60 s, pas 1,5 ms față de 1,8 ms", (5.0, 0.0015, 60.0, 0.0018)),
    _Caz2("pași egali: compilare 5 s față de 60 s, pas 2 ms și 2 ms", (5.0, 0.002, 60.0, 0.002)),
)


def _pasi_referinta(compilare_default_s, pas_default_s, compilare_autotune_s, pas_autotune_s):
    """Cel mai mic n ≥ 1 cu compilare_autotune + n · pas_autotune ≤ compilare_default + n · pas_default,
    sau None dacă nu există."""

    def ajunge(n):
        return compilare_autotune_s + n * pas_autotune_s <= compilare_default_s + n * pas_default_s

    if ajunge(1):
        return 1
    castig = pas_default_s - pas_autotune_s
    if castig <= 0:
        return None
    n = max(1, math.ceil((compilare_autotune_s - compilare_default_s) / castig))
    while n > 1 and ajunge(n - 1):  # protecție față de rotunjirile în virgulă mobilă
        n -= 1
    while not ajunge(n):
        n += 1
    return n


class _TimpDepasit(BaseException):
    """Ridicată de alarmă în codul cursantului; BaseException, ca `apeleaza` să n-o înghită."""


def _apeleaza_cu_limita(functie, argumente, secunde):
    """`apeleaza(functie, *argumente)`, oprit după `secunde` (unde se poate: Unix, firul principal)."""
    poate = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not poate:
        return apeleaza(functie, *argumente)

    def la_alarma(semnal, cadru):
        raise _TimpDepasit()

    vechi = signal.signal(signal.SIGALRM, la_alarma)
    signal.setitimer(signal.ITIMER_REAL, secunde)
    try:
        return apeleaza(functie, *argumente)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, vechi)


def _raspuns_2(functie, caz: _Caz2):
    try:
        valoare = _apeleaza_cu_limita(functie, caz.argumente, _LIMITA_TIMP_2_S)
    except _TimpDepasit:
        raise GresealaCursant(
            f"Pentru cazul „{caz.descriere}”, funcția n-a terminat în {format_numar(_LIMITA_TIMP_2_S)} s. "
            "O buclă care crește n până când max-autotune ajunge din urmă nu se oprește niciodată când "
            "pasul lui nu e mai rapid: verifică întâi cazul acesta și întoarce None (sau calculează n "
            "direct, cu math.ceil)."
        ) from None
    except GresealaCursant as greseala:
        text = str(greseala)
        if text == NESCRIS:
            raise
        if "ZeroDivisionError" in text:
            raise GresealaCursant(
                f"Pentru cazul „{caz.descriere}”, codul tău a împărțit la zero. Când pașii durează la fel, "
                "max-autotune nu câștigă nimic pe pas și nu-și recuperează niciodată compilarea: verifică "
                "acest caz înainte de împărțire și întoarce None."
            ) from None
        raise GresealaCursant(f"Pentru cazul „{caz.descriere}”: {text}") from None
    if isinstance(valoare, torch.Tensor) and valoare.numel() == 1:
        valoare = valoare.item()
    return valoare


def _la_fel_2(obtinut, asteptat) -> bool:
    if asteptat is None:
        return obtinut is None
    return _e_intreg(obtinut) and int(obtinut) == asteptat


def _diagnostic_2(caz: _Caz2, obtinut, asteptat) -> str:
    """De ce e greșit răspunsul `obtinut` pentru `caz` (trebuia `asteptat`)."""
    inceput = f"Pentru cazul „{caz.descriere}” ai întors {obtinut!r}"
    if asteptat is None:
        if isinstance(obtinut, bool) or not isinstance(obtinut, numbers.Real):
            return f"{inceput}, dar trebuia None: max-autotune nu-și recuperează niciodată compilarea aici."
        if isinstance(obtinut, float) and math.isinf(obtinut):
            return (
                f"{inceput}. Ideea e bună (niciodată), dar funcția trebuie să întoarcă None, nu infinit: "
                "None spune limpede „nu există un asemenea n”, iar un număr, chiar infinit, se poate aduna "
                "sau compara din greșeală mai departe."
            )
        if obtinut < 0:
            return (
                f"{inceput}, un număr negativ. Când pasul max-autotune nu e mai rapid, formula dă un n "
                "negativ (sau împarte la zero), dar niciun număr de pași nu ajunge: compilarea în plus nu "
                "se recuperează niciodată. Verifică acest caz înainte de formulă și întoarce None (nu -1)."
            )
        return (
            f"{inceput}, dar trebuia None: aici max-autotune compilează mai mult și nu e mai rapid pe pas, "
            "deci nu-și recuperează niciodată compilarea."
        )
    if obtinut is None:
        return (
            f"{inceput}, dar aici max-autotune ajunge din urmă după {cu_substantiv(asteptat, 'pas', 'pași')}. "
            "None e doar pentru cazul în care pasul lui nu e mai "
            "rapid și nici compilarea nu e mai ieftină."
        )
    if isinstance(obtinut, bool) or not isinstance(obtinut, numbers.Real):
        return f"{inceput} ({type(obtinut).__name__}), dar trebuia un număr întreg de pași: {format_numar(asteptat)}."
    if isinstance(obtinut, float):
        if math.isnan(obtinut) or math.isinf(obtinut):
            return f"{inceput}, dar trebuia {format_numar(asteptat)}. Verifică împărțirile. {_FORMULA_2}"
        if not obtinut.is_integer():
            return (
                f"{inceput}: n-ai rotunjit. Pașii se numără în întregi: rotunjește în sus cu math.ceil "
                f"(trebuia {format_numar(asteptat)}). {_FORMULA_2}"
            )
        if int(obtinut) == asteptat:
            return (
                f"{inceput}: valoarea e bună, dar e un float. Un număr de pași e un întreg: întoarce un int "
                "(math.ceil întoarce deja int; numpy.ceil și împărțirea / întorc float — învelește în int(...))."
            )
        obtinut = int(obtinut)
    if obtinut == 0 and asteptat == 1:
        return (
            f"{inceput}, dar numărarea pașilor începe de la n = 1: aici max-autotune nu compilează mai mult, "
            "așa că e în câștig chiar de la primul pas. Întoarce cel puțin 1 (de exemplu max(1, n))."
        )
    if obtinut < 0 and asteptat == 1:
        return (
            f"{inceput}, un număr negativ: aici max-autotune compilează mai repede, deci formula dă un n "
            "negativ. E în câștig chiar de la primul pas: răspunsul e 1 (folosește max(1, n))."
        )
    if obtinut == 1 and asteptat > 1:
        return (
            f"{inceput}, dar trebuia {format_numar(asteptat)}. Ai răspuns ca și cum compilarea n-ar costa nimic: ai uitat "
            f"timpii de compilare, sau ai pus argumentele în altă ordine (ordinea e {_ORDINEA_2}). {_FORMULA_2}"
        )
    if obtinut == asteptat - 1:
        return (
            f"{inceput}, cu unu mai puțin decât trebuie ({format_numar(asteptat)}): ai rotunjit în jos "
            f"(math.floor sau int(...)). După {cu_substantiv(obtinut, 'pas', 'pași')}, max-autotune încă n-a recuperat compilarea: rotunjește în sus, cu math.ceil."
        )
    if obtinut == asteptat + 1:
        egalitate = _pasi_ajung_la_egalitate(caz, asteptat)
        return (
            f"{inceput}, cu unu mai mult decât trebuie ({format_numar(asteptat)}). "
            + (
                f"La n = {asteptat} costurile totale sunt exact egale, iar condiția e „≤”: n = {asteptat} se "
                "numără. Probabil ai folosit floor(...) + 1, int(...) + 1 sau o comparație strictă (<)."
                if egalitate
                else "Ai adăugat un pas în plus după rotunjirea în sus."
            )
        )
    return f"{inceput}, dar trebuia {format_numar(asteptat)}. {_FORMULA_2}"


def _pasi_ajung_la_egalitate(caz: _Caz2, n: int) -> bool:
    cd, pd, ca, pa = caz.argumente
    return ca + n * pa == cd + n * pd


def _permutare_potrivita(obtinute: list) -> tuple | None:
    """O ordine a argumentelor (alta decât cea corectă) cu care referința dă exact răspunsurile
    cursantului, dacă acestea nu sunt toate la fel; altfel None."""
    if len({repr(v) for v in obtinute}) < 2:
        return None
    for ordine in itertools.permutations(range(4)):
        if ordine == (0, 1, 2, 3):
            continue
        asteptate = [_pasi_referinta(*(caz.argumente[i] for i in ordine)) for caz in _CAZURI_2]
        if all(_la_fel_2(o, a) for o, a in zip(obtinute, asteptate)):
            return ordine
    return None


def exercitiul_2(pasi_de_rentabilitate) -> Rezultat:
    """Verifică `pasi_de_rentabilitate(compilare_default_s, pas_default_s, compilare_autotune_s,
    pas_autotune_s)`: cel mai mic întreg n ≥ 1 pentru care compilarea cu max-autotune plus n pași
    costă cel mult cât compilarea implicită plus n pași, sau None dacă nu există.

    Răspunsul trebuie să fie un întreg (int, sau un întreg NumPy). Un float e respins, chiar dacă
    are valoarea bună (183334.0): un număr de pași e un întreg, iar mesajul spune cum se repară."""

    def corp():
        obtinute = [_raspuns_2(pasi_de_rentabilitate, caz) for caz in _CAZURI_2]
        asteptate = [_pasi_referinta(*caz.argumente) for caz in _CAZURI_2]
        gresite = [(c, o, a) for c, o, a in zip(_CAZURI_2, obtinute, asteptate) if not _la_fel_2(o, a)]
        if not gresite:
            return (
                "În cazul tipic, max-autotune își recuperează cele 55 s de compilare în plus după "
                f"{cu_substantiv(asteptate[0], 'pas', 'pași')} (0,3 ms câștigați pe pas). La o antrenare "
                "lungă merită; la un notebook rulat o dată, nu."
            )
        ordine = _permutare_potrivita(obtinute)
        if ordine is not None:
            nume = ("compilare_default_s", "pas_default_s", "compilare_autotune_s", "pas_autotune_s")
            folosita = ", ".join(nume[i] for i in ordine)
            raise GresealaCursant(
                "Răspunsurile tale sunt exact cele ale formulei corecte cu argumentele în altă ordine: "
                f"ai lucrat ca și cum ordinea ar fi ({folosita}). Ordinea cerută e {_ORDINEA_2}."
            )
        raise GresealaCursant(_diagnostic_2(*gresite[0]))

    return verificare("Exercițiul 2", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: planul de compilare potrivit fiecărui GPU
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DescriereGPU:
    """Ce contează, la compilare, despre un GPU: capabilitatea CUDA (generația: 7.5 = Turing,
    8.0 și 8.6 = Ampere, 8.9 = Ada, 9.0 = Hopper), numărul de multiprocesoare (SM) și memoria."""

    nume: str
    capabilitate: tuple[int, int]
    numar_sm: int
    memorie_gib: float


#: GPU-uri reale, cu datele lor tehnice.
GPU_URI_DE_EXEMPLU = [
    DescriereGPU("Tesla T4", (7, 5), 40, 15.0),
    DescriereGPU("Tesla V100", (7, 0), 80, 32.0),
    DescriereGPU("A100", (8, 0), 108, 80.0),
    DescriereGPU("GeForce RTX 3060", (8, 6), 28, 12.0),
    DescriereGPU("GeForce RTX 3080", (8, 6), 68, 10.0),
    DescriereGPU("L4", (8, 9), 58, 24.0),
    DescriereGPU("GeForce RTX 4090", (8, 9), 128, 24.0),
    DescriereGPU("H100", (9, 0), 132, 80.0),
    DescriereGPU("H200", (9, 0), 132, 141.0),
]

# GPU-uri pe care cursantul nu le vede: regula trebuie să meargă pentru orice placă.
_GPU_URI_DE_CONTROL = [
    DescriereGPU("GeForce RTX 2080 Ti", (7, 5), 68, 11.0),
    DescriereGPU("A10G", (8, 6), 80, 24.0),
    DescriereGPU("GeForce RTX 4060", (8, 9), 24, 8.0),
    DescriereGPU("Tesla P100", (6, 0), 56, 16.0),
    DescriereGPU("RTX A6000", (8, 6), 84, 48.0),
]

_CHEI_PLAN = ("dtype", "sabloane_gemm")

_EXPLICATII_DTYPE = {
    "float32": (
        "float32 nu e un tip pentru viteză: nucleele tensoriale (tensor cores) ating viteza maximă cu "
        "tipuri de 16 biți (pe A100: 312 TFLOP/s în bf16 sau float16, față de 19,5 în float32 obișnuit), "
        "iar un tip de 16 biți mută și jumătate din octeți. Alege bfloat16 sau float16."
    ),
    "bf16_vechi": (
        "GPU-urile dinainte de Ampere (capabilitate sub 8.0, ca T4 și V100) n-au bf16 în nucleele "
        "tensoriale: PyTorch îl emulează, mult mai lent. Pe ele alege float16 (la antrenare, cu GradScaler)."
    ),
    "fp16_nou": (
        "De la Ampere (capabilitate 8.0) încolo, bf16 e la fel de rapid ca float16, dar are domeniul lui "
        "float32 (8 biți de exponent): nu depășește 65 504, ca float16, și nu cere scalarea pierderii "
        "(GradScaler). Alege bfloat16."
    ),
    "prag_8_0": (
        "Atenție la A100: capabilitatea lui e exact (8, 0), chiar pragul. Condiția e capabilitate ≥ (8, 0) "
        "(tuplurile se compară direct: gpu.capabilitate >= (8, 0))."
    ),
    "alt_tip": "Planul alege doar între torch.bfloat16 și torch.float16.",
}

_REGULA_SABLOANE = (
    f"Regula lui Inductor: numar_sm ≥ {SM_MINIM_GEMM_AUTOTUNE} (constanta SM_MINIM_GEMM_AUTOTUNE din "
    "curs_compilare.mediu); sub prag, max-autotune afișează „Not enough SMs to use max_autotune_gemm mode” "
    "și reglează doar restul kernel-urilor."
)

_EXPLICATII_SABLOANE = {
    "strict": (
        f"Pragul e inclusiv: cu exact {SM_MINIM_GEMM_AUTOTUNE} de SM (RTX 3080, RTX 2080 Ti), Inductor "
        f"folosește șabloanele. Condiția e numar_sm >= {SM_MINIM_GEMM_AUTOTUNE}, nu > {SM_MINIM_GEMM_AUTOTUNE}."
    ),
    "memorie_gib": (
        "Ai decis după memorie. Inductor nu se uită la memorie, ci la câte multiprocesoare (SM) are "
        f"GPU-ul: un RTX 3080 cu 10 GiB are {SM_MINIM_GEMM_AUTOTUNE} de SM și primește șabloanele, un L4 cu "
        "24 GiB are doar 58 și nu le primește."
    ),
    "capabilitate": (
        "Ai decis după capabilitate (generație). Pragul lui Inductor e numărul de multiprocesoare, nu "
        "generația: V100 (7.0) are 80 de SM și primește șabloanele, RTX 3060 (8.6) are doar 28 și nu."
    ),
    "nume": (
        "Ai decis după numele GPU-ului. Regula trebuie să meargă pentru orice placă, și pentru una pe "
        "care n-ai văzut-o: Inductor numără multiprocesoarele (numar_sm), nu citește numele."
    ),
    "fara_sm": "Decizia ta nu depinde de numar_sm, singurul câmp care contează aici.",
}

_EXPLICATII_DEPENDENTA_DTYPE = {
    "memorie_gib": "Alegerea tipului tău depinde de memorie; contează doar capabilitatea (generația).",
    "numar_sm": "Alegerea tipului tău depinde de numărul de SM; contează doar capabilitatea (generația).",
    "nume": (
        "Alegerea tipului tău depinde de numele GPU-ului; regula trebuie să meargă pentru orice placă: "
        "folosește capabilitatea."
    ),
}

_BAZA_PROBA = DescriereGPU("GPU de probă", (8, 0), 108, 40.0)
_VARIANTE_PROBA = {
    "nume": ("GPU de probă", "NVIDIA A100-SXM4-80GB") + tuple(g.nume for g in GPU_URI_DE_EXEMPLU),
    "memorie_gib": (8.0, 16.0, 40.0, 80.0, 141.0),
    "numar_sm": (28, 58, 68, 108, 132),
    "capabilitate": ((7, 0), (7, 5), (8, 0), (8, 6), (9, 0)),
}


def _plan_corect(gpu: DescriereGPU) -> tuple[torch.dtype, bool]:
    tip = torch.bfloat16 if tuple(gpu.capabilitate) >= (8, 0) else torch.float16
    return tip, gpu.numar_sm >= SM_MINIM_GEMM_AUTOTUNE


def _nume_tip(tip) -> str:
    return str(tip).replace("torch.", "") if isinstance(tip, torch.dtype) else repr(tip)


def _descriere_scurta(gpu: DescriereGPU) -> str:
    major, minor = gpu.capabilitate
    return f"{gpu.nume} (capabilitate {major}.{minor}, {cu_substantiv(gpu.numar_sm, 'SM', 'SM')}, {format_numar(gpu.memorie_gib)} GiB)"


def _plan_cursant(plan_pentru, gpu: DescriereGPU, cunoscut: bool) -> tuple[torch.dtype, bool]:
    """Planul cursantului pentru `gpu`, verificat ca formă: (dtype, sabloane_gemm)."""
    try:
        plan = apeleaza(plan_pentru, gpu)
    except GresealaCursant as greseala:
        text = str(greseala)
        if text == NESCRIS:
            raise
        sfat = ""
        if not cunoscut and "KeyError" in text:
            sfat = (
                " Acest GPU nu e în GPU_URI_DE_EXEMPLU: regula trebuie să meargă pentru orice placă, deci "
                "decide după gpu.capabilitate și gpu.numar_sm, nu după nume."
            )
        raise GresealaCursant(f"Pentru {_descriere_scurta(gpu)}: {text}{sfat}") from None
    unde = f"pentru {gpu.nume}"
    if plan is None:
        raise GresealaCursant(f"Funcția a întors None {unde}: ai uitat `return`?")
    if not isinstance(plan, dict):
        raise GresealaCursant(
            f"Trebuia un dicționar {{'dtype': ..., 'sabloane_gemm': ...}}, dar {unde} ai întors "
            f"{type(plan).__name__}."
        )
    lipsa = [cheie for cheie in _CHEI_PLAN if cheie not in plan]
    if lipsa:
        are = ", ".join(repr(k) for k in plan) or "nicio cheie"
        raise GresealaCursant(
            f"Dicționarul {unde} nu are {'cheia' if len(lipsa) == 1 else 'cheile'} "
            f"{', '.join(repr(k) for k in lipsa)} (are: {are}). Cheile sunt exact 'dtype' și 'sabloane_gemm'."
        )
    tip = plan["dtype"]
    if isinstance(tip, str):
        raise GresealaCursant(
            f"{_cu_majuscula(unde)}, 'dtype' e textul {tip!r}; folosește obiectul PyTorch: torch.bfloat16 "
            "sau torch.float16."
        )
    if not isinstance(tip, torch.dtype):
        raise GresealaCursant(
            f"{_cu_majuscula(unde)}, 'dtype' e {type(tip).__name__}; trebuia torch.bfloat16 sau torch.float16."
        )
    sabloane = plan["sabloane_gemm"]
    if isinstance(sabloane, torch.Tensor) and sabloane.numel() == 1 and sabloane.dtype == torch.bool:
        sabloane = bool(sabloane.item())
    elif isinstance(sabloane, np.bool_) or (isinstance(sabloane, np.ndarray) and sabloane.shape == () and sabloane.dtype == bool):
        sabloane = bool(sabloane)
    if not isinstance(sabloane, bool):
        raise GresealaCursant(
            f"{_cu_majuscula(unde)}, 'sabloane_gemm' e {sabloane!r} ({type(sabloane).__name__}); trebuie să fie "
            "True sau False (de exemplu, rezultatul unei comparații)."
        )
    return tip, sabloane


def _proba(plan_pentru, gpu: DescriereGPU):
    """Planul cursantului pentru un GPU de probă, sau None dacă funcția cade."""
    try:
        return _plan_cursant(plan_pentru, gpu, cunoscut=False)
    except GresealaCursant:
        return None


def _depinde_de(plan_pentru, camp: str, indice: int) -> bool:
    """Adevărat dacă decizia `indice` (0 = dtype, 1 = sabloane_gemm) se schimbă când se schimbă
    doar câmpul `camp` al GPU-ului de probă."""
    decizii = set()
    for valoare in _VARIANTE_PROBA[camp]:
        plan = _proba(plan_pentru, replace(_BAZA_PROBA, **{camp: valoare}))
        if plan is not None:
            decizii.add(plan[indice])
    return len(decizii) > 1


def _explica_dtype(plan_pentru, gresite) -> list[str]:
    explicatii = []
    for gpu, obtinut, asteptat in gresite:
        if obtinut == torch.float32:
            cheie = "float32"
        elif obtinut not in (torch.bfloat16, torch.float16):
            cheie = "alt_tip"
        elif obtinut == torch.bfloat16:
            cheie = "bf16_vechi"
        else:
            cheie = "fp16_nou"
        if _EXPLICATII_DTYPE[cheie] not in explicatii:
            explicatii.append(_EXPLICATII_DTYPE[cheie])
    prag = [g for g, o, _ in gresite if tuple(g.capabilitate) == (8, 0) and o == torch.float16]
    if prag and all(tuple(g.capabilitate) == (8, 0) for g, _, _ in gresite):
        explicatii.append(_EXPLICATII_DTYPE["prag_8_0"])
    for camp, explicatie in _EXPLICATII_DEPENDENTA_DTYPE.items():
        if _depinde_de(plan_pentru, camp, 0):
            explicatii.append(explicatie)
    return explicatii


def _explica_sabloane(plan_pentru) -> list[str]:
    explicatii = []
    la_prag = _proba(plan_pentru, replace(_BAZA_PROBA, numar_sm=SM_MINIM_GEMM_AUTOTUNE))
    peste_prag = _proba(plan_pentru, replace(_BAZA_PROBA, numar_sm=SM_MINIM_GEMM_AUTOTUNE + 1))
    if la_prag is not None and peste_prag is not None and not la_prag[1] and peste_prag[1]:
        explicatii.append(_EXPLICATII_SABLOANE["strict"])
    for camp in ("memorie_gib", "capabilitate", "nume"):
        if _depinde_de(plan_pentru, camp, 1):
            explicatii.append(_EXPLICATII_SABLOANE[camp])
    if not _depinde_de(plan_pentru, "numar_sm", 1) and _EXPLICATII_SABLOANE["fara_sm"] not in explicatii:
        explicatii.append(_EXPLICATII_SABLOANE["fara_sm"])
    explicatii.append(_REGULA_SABLOANE)
    return explicatii


def _grupate(gresite, greseala, descriere) -> list[str]:
    """Rândurile „  ai ales X în loc de Y pentru: A (8.0), B (8.6)”, câte unul pe greșeală."""
    grupuri: dict = {}
    for gpu, obtinut, asteptat in gresite:
        grupuri.setdefault(greseala(obtinut, asteptat), []).append(descriere(gpu))
    return [f"  {text} pentru: {', '.join(gpu_uri)}" for text, gpu_uri in grupuri.items()]


def exercitiul_3(plan_pentru) -> Rezultat:
    """Verifică `plan_pentru(gpu: DescriereGPU) -> {"dtype": ..., "sabloane_gemm": ...}` pe
    GPU-urile din `GPU_URI_DE_EXEMPLU` și pe câteva pe care cursantul nu le vede: bfloat16 de la
    capabilitatea (8, 0) încolo, altfel float16; șabloanele GEMM ale lui max-autotune de la
    `SM_MINIM_GEMM_AUTOTUNE` (68) multiprocesoare în sus."""

    def corp():
        gpu_uri = [(g, True) for g in GPU_URI_DE_EXEMPLU] + [(g, False) for g in _GPU_URI_DE_CONTROL]
        gresite_dtype, gresite_sabloane = [], []
        for gpu, cunoscut in gpu_uri:
            tip, sabloane = _plan_cursant(plan_pentru, gpu, cunoscut)
            tip_corect, sabloane_corect = _plan_corect(gpu)
            if tip != tip_corect:
                gresite_dtype.append((gpu, tip, tip_corect))
            if sabloane != sabloane_corect:
                gresite_sabloane.append((gpu, sabloane, sabloane_corect))
        if not gresite_dtype and not gresite_sabloane:
            mesaj = (
                f"Planul e corect pentru toate cele {cu_substantiv(len(GPU_URI_DE_EXEMPLU), 'GPU', 'GPU-uri')} din listă și pentru "
                f"{len(_GPU_URI_DE_CONTROL)} pe care nu le-ai văzut: bfloat16 de la Ampere (8.0) încolo, "
                f"float16 înainte; șabloanele GEMM ale lui max-autotune doar de la {SM_MINIM_GEMM_AUTOTUNE} de SM în sus."
            )
            if torch.cuda.is_available():
                proprietati = torch.cuda.get_device_properties(0)
                al_tau = DescriereGPU(
                    proprietati.name,
                    (proprietati.major, proprietati.minor),
                    proprietati.multi_processor_count,
                    proprietati.total_memory / 2**30,
                )
                tip, sabloane = _plan_corect(al_tau)
                mesaj += (
                    f" Pe GPU-ul tău ({al_tau.nume}): {_nume_tip(tip)}, iar șabloanele GEMM "
                    + ("sunt folosite." if sabloane else "nu sunt folosite.")
                )
            return mesaj
        nume_gresite = []
        for gpu, _, _ in gresite_dtype + gresite_sabloane:
            if gpu.nume not in nume_gresite:
                nume_gresite.append(gpu.nume)
        if len(nume_gresite) == len(gpu_uri):
            randuri = [f"Planul e greșit pentru toate cele {cu_substantiv(len(gpu_uri), 'GPU', 'GPU-uri')} verificate: {', '.join(nume_gresite)}."]
        else:
            randuri = [f"Planul e greșit pentru: {', '.join(nume_gresite)}."]
        if gresite_dtype:
            randuri.append("Tipul de date (dtype):")
            randuri += _grupate(
                gresite_dtype,
                lambda o, a: f"ai ales {_nume_tip(o)} în loc de {_nume_tip(a)}",
                lambda g: f"{g.nume} ({g.capabilitate[0]}.{g.capabilitate[1]})",
            )
            randuri += _explica_dtype(plan_pentru, gresite_dtype)
        if gresite_sabloane:
            randuri.append("Șabloanele GEMM (sabloane_gemm):")
            randuri += _grupate(
                gresite_sabloane, lambda o, a: f"ai pus {o} în loc de {a}",
                lambda g: f"{g.nume} ({cu_substantiv(g.numar_sm, 'SM', 'SM')})",
            )
            randuri += _explica_sabloane(plan_pentru)
        raise GresealaCursant("\n".join(randuri))

    return verificare("Exercițiul 3", corp)
