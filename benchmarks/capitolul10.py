"""Capitolul 10 (FlexAttention) pe mașina curentă, dincolo de ce încape în notebook: cât din debitul
SDPA atinge FlexAttention cauzală pe ce forme și cu ce opțiuni de kernel, și de ce antrenarea cu
fereastră dă altă pierdere decât cea cu SDPA.

Două părți, fiecare cu cifrele ei (cu `CURS_FISIER_CIFRE`, înregistrate ca în notebook):

- `--parte debit`: pentru fiecare formă (lot × capete × S × d), SDPA cauzală și FlexAttention
  compilată cu masca cauzală, măsurate intercalat (`masurare.compara`), fiecare formă cu kernel-ul ei
  (`dynamic=False`); apoi, pe forma capitolului, opțiunile de kernel (`kernel_options`: blocuri,
  warp-uri, etape), același înveliș compilat pe lungimi diferite (formele dinamice automate) și
  `mode="max-autotune-no-cudagraphs"`. Tipărește procentul din debitul SDPA și ținta capitolului (85%);
- `--parte pierderi`: modelul capitolului, antrenat câțiva pași pe același lot, cu SDPA cauzală, cu
  SDPA și masca densă a ferestrei și cu FlexAttention cu aceeași fereastră: dacă SDPA cu masca densă
  și FlexAttention coboară la fel, diferența față de SDPA cauzală vine din fereastră (alt model); dacă
  nu, din kernel. Înainte, gradienții FlexAttention față de SDPA cu masca densă, pe o singură atenție.
  Cere un GPU (pe procesor, FlexAttention n-are pas înapoi).

    python benchmarks/capitolul10.py --parte debit
    python benchmarks/capitolul10.py --parte debit --forme 4x16x4096x64,8x16x4096x64 --fara-optiuni
    python benchmarks/capitolul10.py --parte pierderi
    python benchmarks/capitolul10.py --rapid              # forme mici, pe procesor (și testul)

Pe un H200, fiecare parte încape în câteva minute (`max-autotune` încearcă mai multe configurații
ale șablonului; `--fara-max-autotune` îl sare). Tot ce tipărește se scrie imediat (`flush`).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from curs_compilare import cifre  # noqa: E402
from curs_compilare.capitole import cap10_flex as flex10  # noqa: E402
from curs_compilare.cifre import format_numar, format_procent, format_timp  # noqa: E402
from curs_compilare.masurare import compara  # noqa: E402
from curs_compilare.masurare_compilare import invelis_nou  # noqa: E402

try:
    from torch.nn.attention.flex_attention import create_block_mask, create_mask, flex_attention
except ImportError:  # torch prea vechi
    create_block_mask = create_mask = flex_attention = None

print = functools.partial(print, flush=True)  # noqa: A001 — o rulare oprită își păstrează cifrele

#: Forma capitolului pe un GPU mare (lot, capete, S, d) și câteva vecine.
FORME_GPU = ((4, 16, 4096, 64), (8, 16, 4096, 64), (4, 16, 1024, 64), (4, 16, 16384, 64), (2, 16, 4096, 128))
FORME_RAPID = ((1, 2, 256, 16), (2, 2, 256, 16))
#: Opțiunile de kernel încercate pe forma capitolului (numele lor, în română, și dicționarul).
OPTIUNI = (
    ("blocuri 128×128, 8 warp-uri, 3 etape", {"BLOCK_M": 128, "BLOCK_N": 128, "num_warps": 8, "num_stages": 3}),
    ("blocuri 128×64, 4 warp-uri, 3 etape", {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 4, "num_stages": 3}),
    ("blocuri 64×64, 4 warp-uri, 3 etape", {"BLOCK_M": 64, "BLOCK_N": 64, "num_warps": 4, "num_stages": 3}),
    ("TMA (copierea pe blocuri a lui Hopper)", {"USE_TMA": True}),
)


def cauzala(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def fereastra(latime: int):
    def masca(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx - kv_idx < latime)
    return masca


def _forma_text(forma) -> str:
    lot, capete, lungime, dim = forma
    return f"lot {lot}, {cifre.cu_substantiv(capete, 'cap', 'capete')}, S = {format_numar(lungime)}, d = {dim}"


def _qkv(forma, dispozitiv, tip, cere_grad=False):
    generator = torch.Generator(device="cpu").manual_seed(0)
    return tuple(torch.randn(forma, generator=generator).to(dispozitiv, tip).requires_grad_(cere_grad) for _ in range(3))


def masoara_o_forma(forma, dispozitiv, tip, eticheta: str, *, optiuni=None, mod=None, compilat=None, runde=5):
    """SDPA cauzală și FlexAttention cauzală pe `forma`, intercalat; întoarce (partea din debitul SDPA,
    raportul rundelor, secundele primului apel al FlexAttention, cu compilarea)."""
    q, k, v = _qkv(forma, dispozitiv, tip)
    lungime = forma[2]
    masca = create_block_mask(cauzala, None, None, lungime, lungime, device=dispozitiv)
    flex = compilat or torch.compile(invelis_nou(flex_attention, f"banc_{eticheta}"), dynamic=False, mode=mod)
    argumente = {"block_mask": masca, **({"kernel_options": optiuni} if optiuni else {})}
    start = time.perf_counter()
    with torch.no_grad():
        flex(q, k, v, **argumente)
    if dispozitiv == "cuda":
        torch.cuda.synchronize()
    compilare_s = time.perf_counter() - start
    with torch.no_grad():
        comparatie = compara({"SDPA": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                              "Flex": lambda q, k, v: flex(q, k, v, **argumente)}, q, k, v, runde=runde, timp_minim_s=0.3)
    raport = comparatie.accelerare("SDPA", "Flex")
    tflops = flex10.flops_atentie(flex10.Marimi(forma[0], forma[1], forma[3], (lungime,), (lungime,), lungime, tip),
                                  lungime * (lungime + 1) // 2) / comparatie["SDPA"].mediana_s / 1e12
    return raport, compilare_s, tflops


def parte_debit(argumente) -> None:
    pe_gpu = torch.cuda.is_available() and not argumente.rapid
    dispozitiv = "cuda" if pe_gpu else "cpu"
    tip = torch.bfloat16 if pe_gpu and torch.cuda.is_bf16_supported() else torch.float16 if pe_gpu else torch.float32
    forme = ([tuple(int(x) for x in f.split("x")) for f in argumente.forme.split(",")] if argumente.forme
             else FORME_GPU if pe_gpu else FORME_RAPID)
    print(f"Debitul FlexAttention cauzale față de SDPA cauzală, pe {torch.cuda.get_device_name() if pe_gpu else 'procesor'}, "
          f"{str(tip).removeprefix('torch.')}, torch {torch.__version__}; ținta pe un GPU mare: "
          f"{format_procent(flex10.TINTA_FATA_DE_SDPA)}.")
    rezultate = {}
    for forma in forme:
        raport, compilare_s, tflops_sdpa = masoara_o_forma(forma, dispozitiv, tip, "x".join(map(str, forma)))
        rezultate[forma] = raport
        print(f"  {_forma_text(forma)}: Flex {format_procent(raport.mediana)} din debitul SDPA ({raport.interval()}); "
              f"SDPA {flex10._cu_doua_cifre(tflops_sdpa)} TFLOP/s util; compilarea Flex {format_timp(compilare_s)}")
        cheie = "x".join(map(str, forma))
        cifre.inregistreaza(f"10.banc_flex_fata_de_sdpa_{cheie}", raport, "×", f"FlexAttention cauzală față de SDPA, {_forma_text(forma)}")
    baza = forme[0]
    if not argumente.fara_optiuni and pe_gpu:
        print(f"\nOpțiunile de kernel, pe {_forma_text(baza)}:")
        for nume, optiuni in OPTIUNI:
            try:
                raport, compilare_s, _ = masoara_o_forma(baza, dispozitiv, tip, nume[:12], optiuni=optiuni)
                print(f"  {nume}: {format_procent(raport.mediana)} din debitul SDPA ({raport.interval()}); "
                      f"compilarea {format_timp(compilare_s)}")
            except Exception as eroare:  # noqa: BLE001 — o opțiune pe care șablonul n-o acceptă pe acest GPU
                print(f"  {nume}: n-a mers ({type(eroare).__name__}: {str(eroare).splitlines()[0][:160]})")
    # același înveliș pe lungimi diferite: la a doua lungime, formele dinamice automate recompilează cu S simbolic
    print(f"\nUn singur înveliș compilat (fără dynamic=False), chemat pe lungimi crescătoare, cu lotul și capetele "
          f"formei {_forma_text(baza)}:")
    comun = torch.compile(invelis_nou(flex_attention, "banc_comun"))
    for lungime in sorted({f[2] for f in forme if f[:2] == baza[:2] and f[3] == baza[3]} | {baza[2]}):
        forma = (baza[0], baza[1], lungime, baza[3])
        raport, _, _ = masoara_o_forma(forma, dispozitiv, tip, "comun", compilat=comun)
        print(f"  S = {format_numar(lungime)}: {format_procent(raport.mediana)} din debitul SDPA "
              f"(cu kernel-ul ei: {format_procent(rezultate[forma].mediana) if forma in rezultate else '—'})")
    if pe_gpu and not argumente.fara_max_autotune:
        start = time.perf_counter()
        try:
            raport, compilare_s, _ = masoara_o_forma(baza, dispozitiv, tip, "reglat", mod="max-autotune-no-cudagraphs")
            print(f"\nmax-autotune-no-cudagraphs, pe {_forma_text(baza)}: {format_procent(raport.mediana)} din debitul "
                  f"SDPA ({raport.interval()}); compilarea cu reglarea {format_timp(compilare_s)}")
            cifre.inregistreaza("10.banc_flex_reglata_fata_de_sdpa", raport, "×",
                                f"FlexAttention cauzală cu max-autotune față de SDPA, {_forma_text(baza)}")
        except Exception as eroare:  # noqa: BLE001
            print(f"\nmax-autotune n-a mers după {format_timp(time.perf_counter() - start)}: "
                  f"{type(eroare).__name__}: {str(eroare).splitlines()[0][:160]}")


def parte_pierderi(argumente) -> None:
    if not torch.cuda.is_available() or argumente.rapid:
        print("Partea pierderilor cere un GPU: pe procesor, FlexAttention n-are pas înapoi.")
        return
    from curs_compilare.modele import (ReteaTransformer, configuratie_pentru_mediu, cu_precizie, lot_aleator,
                                       optimizator_pentru, pierdere, precizie_pentru_mediu)

    dispozitiv, precizie = "cuda", precizie_pentru_mediu()
    configuratie = configuratie_pentru_mediu()
    latime = configuratie.lungime // 4
    print(f"Gradienții unei atenții cu fereastra {latime}: FlexAttention față de SDPA cu masca densă echivalentă.")
    for tip in (precizie, torch.float32):
        q, k, v = _qkv((4, 8, configuratie.lungime, 64), dispozitiv, tip, cere_grad=True)
        bloc = create_block_mask(fereastra(latime), None, None, configuratie.lungime, configuratie.lungime, device=dispozitiv)
        densa = create_mask(fereastra(latime), 1, 1, configuratie.lungime, configuratie.lungime, device=dispozitiv)
        torch.compile(flex_attention)(q, k, v, block_mask=bloc).float().square().mean().backward()
        gradienti = [t.grad.clone() for t in (q, k, v)]
        for t in (q, k, v):
            t.grad = None
        F.scaled_dot_product_attention(q, k, v, attn_mask=densa).float().square().mean().backward()
        diferente = [float((a - t.grad).abs().max() / t.grad.abs().max()) for a, t in zip(gradienti, (q, k, v))]
        print(f"  {str(tip).removeprefix('torch.')}: diferența relativă maximă a gradienților q, k, v: "
              + ", ".join(format_numar(d, 4) for d in diferente))

    print(f"\nAntrenarea: {cifre.cu_substantiv(configuratie.nr_straturi, 'strat', 'straturi')} de lățime "
          f"{configuratie.dim_model}, S = {format_numar(configuratie.lungime)}, lotul {configuratie.marime_lot}, "
          f"{cifre.cu_substantiv(argumente.pasi, 'pas', 'pași')} pe același lot.")
    torch.manual_seed(0)
    baza = ReteaTransformer(configuratie).to(dispozitiv)
    intrari, tinte = lot_aleator(configuratie, dispozitiv)
    densa = create_mask(fereastra(latime), 1, 1, configuratie.lungime, configuratie.lungime, device=dispozitiv)[0, 0]

    def antreneaza(model, nume):
        model.load_state_dict(baza.state_dict())
        optimizator = optimizator_pentru(model)
        calcul = cu_precizie(torch.compile(lambda x, y: pierdere(model, x, y)), precizie)
        pierderi = []
        for _ in range(argumente.pasi):
            optimizator.zero_grad(set_to_none=True)
            valoare = calcul(intrari, tinte)
            valoare.backward()
            optimizator.step()
            pierderi.append(float(valoare))
        print(f"  {nume}: pierderea {format_numar(pierderi[0], 3)} → {format_numar(pierderi[len(pierderi) // 2], 3)} → "
              f"{format_numar(pierderi[-1], 3)}")
        return pierderi[-1]

    finale = {"SDPA cauzală": antreneaza(ReteaTransformer(configuratie).to(dispozitiv), "SDPA cauzală")}
    bloc = create_block_mask(fereastra(latime), None, None, configuratie.lungime, configuratie.lungime, device=dispozitiv)
    finale["Flex, fereastră"] = antreneaza(flex10.ReteaCuFlex(configuratie, bloc).to(dispozitiv),
                                           f"FlexAttention, fereastra {latime}")
    originala = F.scaled_dot_product_attention
    import curs_compilare.modele as modele

    # aceeași fereastră, ca mască densă dată lui SDPA (modulul modelului cheamă F.scaled_dot_product_attention)
    modele.F.scaled_dot_product_attention = lambda q, k, v, is_causal=False, **rest: originala(q, k, v, attn_mask=densa)
    try:
        finale["SDPA, fereastră densă"] = antreneaza(ReteaTransformer(configuratie).to(dispozitiv),
                                                     f"SDPA cu masca densă a ferestrei {latime}")
    finally:
        modele.F.scaled_dot_product_attention = originala
    diferenta = abs(finale["Flex, fereastră"] - finale["SDPA, fereastră densă"])
    print(f"\nFlexAttention și SDPA cu aceeași fereastră, densă, se despart cu {format_numar(diferenta, 3)} după "
          f"{cifre.cu_substantiv(argumente.pasi, 'pas', 'pași')}: "
          + ("aceeași curbă, deci diferența față de SDPA cauzală vine din fereastră (un alt model), nu din kernel."
             if diferenta < 0.05 else "nu e aceeași curbă, deci kernel-ul ferestrei (sau masca lui) diferă de cel dens."))
    for nume, valoare in finale.items():
        cifre.inregistreaza(f"10.banc_pierdere_{cifre_cheie(nume)}", valoare, "",
                            f"pierderea după {cifre.cu_substantiv(argumente.pasi, 'pas', 'pași')}, {nume}",
                            prag_absolut=0.05)


def cifre_cheie(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text.lower().replace("ă", "a")).strip("_")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parte", choices=("debit", "pierderi", "ambele"), default="ambele")
    parser.add_argument("--forme", default="", help="forme lot x capete x S x d, despărțite prin virgulă (4x16x4096x64,…)")
    parser.add_argument("--fara-optiuni", action="store_true", help="fără opțiunile de kernel")
    parser.add_argument("--fara-max-autotune", action="store_true", help="fără max-autotune (compilarea cea mai lungă)")
    parser.add_argument("--pasi", type=int, default=20, help="pașii de antrenare ai părții pierderilor")
    parser.add_argument("--rapid", action="store_true", help="forme mici, pe procesor (și testul scriptului)")
    argumente = parser.parse_args(argv)
    if flex_attention is None:
        print(f"torch {torch.__version__} n-are FlexAttention.")
        return 1
    if argumente.parte in ("debit", "ambele"):
        parte_debit(argumente)
    if argumente.parte in ("pierderi", "ambele"):
        print()
        parte_pierderi(argumente)
    return 0


if __name__ == "__main__":
    sys.exit(main())
