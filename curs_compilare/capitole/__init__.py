"""Uneltele capitolelor: câte un modul pentru fiecare capitol care are nevoie de unelte proprii,
cu numărul capitolului în nume, ca să știi din prima unde cauți.

- `cap00_masurare` — cronometrul naiv, timpii apel cu apel, pragul de rentabilitate, plafonul de
  copiere, cu cifrele lor (00);
- `cap01_prima_compilare` — cifrele inferenței și ale antrenării, ocuparea GPU-ului, graficul și
  explicația unei încetiniri (01);
- `cap02_dynamo` — tabelul întreruperilor, costul lor, compilările pe o secvență de loturi (02);
- `cap03_fuziune` — lanțurile de operații, octeții mutați, codul generat (03);
- `cap04_grafuri_cuda` — costul lansărilor, grafurile CUDA, `reduce-overhead` (04);
- `cap05_reglare` — reglarea automată, produsul de matrice în Triton, modurile (05);
- `cap05_cache` — cache-ul lui Inductor și artefactele lui, într-un proces nou (05, 06);
- `cap06_modelul_intreg` — antrenarea și servirea modelului întreg, precizia, modurile (06);
- `cap07_diagnoza` — jurnalele, urmele, etapele compilatorului, harta diagnozei (07);
- `cap08_ranguri` — o funcție dintr-o celulă, rulată în N procese cu `torch.distributed`, ca sub
  `torchrun`, fără să se blocheze (08);
- `cap08_distribuit` — DDP și FSDP2 sub compilare: grafurile pe găleată, suprapunerea
  all-reduce-urilor, plasarea compilării, FSDP2 bloc cu bloc (08);
- `cap09_export` — ce refuză `torch.export`, spus în română, și programul C++ care încarcă un
  pachet AOTInductor fără Python (09);
- `cap10_flex` — unde rulează FlexAttention (pe un GPU vechi, încercat întâi într-un proces
  separat), atenția naivă, masca pe blocuri, debitul în TFLOP/s utili, recompilările (10);
- `cap11_generare` — generarea textului: bucla naivă, cache-ul KV care crește și recompilările
  lui, cache-ul KV static compilat o dată pentru toate pozițiile, reluările grafurilor CUDA,
  plafonul lățimii de bandă pe mărimi și loturi, greutățile int8 și codul lor generat, costul în
  calitate (11);
- `cap12_memorie` — activările salvate numărate exact (cârlige, grafurile de după partiționare),
  vârful memoriei unui pas, strategiile de memorie (checkpointing, selectiv, bugetul) pe același
  model, diagrama viteză–memorie și ce lot încape sub un plafon (12).

Cine pe cine importă: un modul de aici folosește nucleul de măsurare (modulele din
`curs_compilare/`, de exemplu `masurare`, `cifre`, `modele`) și, la nevoie, uneltele altui
capitol de aici; nu importă niciodată `curs_compilare.instructor`. Nucleul nu importă nimic de
aici. Testul `tests/test_arhitectura.py` verifică aceste reguli.
"""
